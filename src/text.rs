//! Words for people: a count with its noun in the right number ("1 frame", "3 frames"), and text
//! made safe for a cell of a Markdown table (the generated references).

pub use simreel_compare::text::count;

/// `s` as the cell of a Markdown table: on one line, its `|` escaped, and outside `code spans`
/// its `<` and `>` written as entities, so that `DIR/<scene>/` is not read as an HTML tag (by
/// mdBook or a code host). Inside a code span they stay as they are.
pub fn table_cell(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut in_code = false;
    for c in s.chars() {
        match c {
            '`' => {
                in_code = !in_code;
                out.push(c);
            }
            '|' => out.push_str("\\|"),
            '\n' => out.push(' '),
            '<' if !in_code => out.push_str("&lt;"),
            '>' if !in_code => out.push_str("&gt;"),
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_cell_escapes_what_markdown_would_misread_outside_code() {
        assert_eq!(table_cell("DIR/<scene>/ or `DIR/<scene>/`"), "DIR/&lt;scene&gt;/ or `DIR/<scene>/`");
        assert_eq!(table_cell("`I/N|auto`, a|b\nnext"), "`I/N\\|auto`, a\\|b next");
    }

    #[test]
    fn one_is_singular_and_everything_else_plural() {
        assert_eq!(count(1, "frame", "frames"), "1 frame");
        assert_eq!(count(0, "frame", "frames"), "0 frames");
        assert_eq!(count(2, "die", "dice"), "2 dice");
        assert_eq!(count(1, "die", "dice"), "1 die");
    }
}
