//! Words for people: a count with its noun in the right number ("1 frame", "3 frames"), a span of
//! time ("2 h 10 min"), and text made safe for a cell of a Markdown table (the generated
//! references).

pub use simreel_compare::text::count;

/// `seconds` as a person reads a span of time, to two figures at most: "0.4 s", "42 s",
/// "3 min 20 s", "2 h 10 min", "3 days 4 h".
pub fn duration(seconds: f64) -> String {
    let s = seconds.max(0.0);
    if s < 10.0 {
        return format!("{s:.1} s");
    }
    let whole = s.round() as u64;
    let pair = |big: u64, of: u64, big_unit: &str, small_unit: &str| match (whole / of, whole % of / (of / big)) {
        (n, 0) => format!("{n} {big_unit}"),
        (n, m) => format!("{n} {big_unit} {m} {small_unit}"),
    };
    match whole {
        0..60 => format!("{whole} s"),
        60..3600 => pair(60, 60, "min", "s"),
        3600..86_400 => pair(60, 3600, "h", "min"),
        _ if whole < 2 * 86_400 => pair(24, 86_400, "day", "h"),
        _ => pair(24, 86_400, "days", "h"),
    }
}

/// A count as a person reads it: "950", "12,500", "2.3 million", "160 billion" (to two or three
/// figures past a million).
pub fn number(n: f64) -> String {
    let n = n.max(0.0).round();
    let scaled = |by: f64, word: &str| {
        let x = n / by;
        if x < 10.0 { format!("{x:.1} {word}") } else { format!("{x:.0} {word}") }
    };
    if n >= 1e12 {
        scaled(1e12, "trillion")
    } else if n >= 1e9 {
        scaled(1e9, "billion")
    } else if n >= 1e6 {
        scaled(1e6, "million")
    } else {
        let digits = (n as u64).to_string();
        let mut out = String::new();
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i).is_multiple_of(3) {
                out.push(',');
            }
            out.push(c);
        }
        out
    }
}

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
    fn spans_of_time_read_in_their_largest_units() {
        let cases = [
            (0.04, "0.0 s"),
            (0.44, "0.4 s"),
            (9.94, "9.9 s"),
            (42.4, "42 s"),
            (60.0, "1 min"),
            (200.0, "3 min 20 s"),
            (3600.0, "1 h"),
            (7800.0, "2 h 10 min"),
            (90_000.0, "1 day 1 h"),
            (3.0 * 86_400.0 + 4.0 * 3600.0, "3 days 4 h"),
        ];
        for (s, words) in cases {
            assert_eq!(super::duration(s), words, "{s} s");
        }
    }

    #[test]
    fn large_counts_read_in_groups_and_words() {
        let cases = [(0.0, "0"), (950.0, "950"), (12_500.0, "12,500"), (999_999.0, "999,999"), (2.34e6, "2.3 million")];
        let more = [(16e6, "16 million"), (1.6e11, "160 billion"), (3e12, "3.0 trillion")];
        for (n, words) in cases.into_iter().chain(more) {
            assert_eq!(super::number(n), words, "{n}");
        }
    }

    #[test]
    fn one_is_singular_and_everything_else_plural() {
        assert_eq!(count(1, "frame", "frames"), "1 frame");
        assert_eq!(count(0, "frame", "frames"), "0 frames");
        assert_eq!(count(2, "die", "dice"), "2 dice");
        assert_eq!(count(1, "die", "dice"), "1 die");
    }
}
