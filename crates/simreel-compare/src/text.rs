//! Words for people and for shells.

/// `n` and the noun that goes with it: `one` for exactly one, `many` otherwise (also for 0).
pub fn count(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Whether `c` must not reach a terminal as it is: control characters (escape sequences, a
/// carriage return that overwrites a line, a newline that starts a fake one) and the
/// bidirectional overrides that reorder what is shown.
pub fn is_hidden(c: char) -> bool {
    c.is_control() || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Text read back from a file (a report, a manifest), made safe to show on one line: every
/// character [`is_hidden`] written as its escape (`\u{1b}`), the rest as it is.
pub fn shown(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.chars().any(is_hidden) {
        return std::borrow::Cow::Borrowed(s);
    }
    std::borrow::Cow::Owned(s.chars().map(|c| if is_hidden(c) { c.escape_unicode().to_string() } else { c.to_string() }).collect())
}

/// A message for the terminal, lines kept: [`shown`] on each line, so that nothing in it (a name
/// or a value read back from a file) can move the cursor, clear the screen or fake a line.
pub fn for_terminal(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.chars().any(|c| c != '\n' && is_hidden(c)) {
        return std::borrow::Cow::Borrowed(s);
    }
    std::borrow::Cow::Owned(s.split('\n').map(shown).collect::<Vec<_>>().join("\n"))
}

/// `word` quoted for a POSIX shell where it needs to be (a printed command can be pasted).
pub fn sh(word: &str) -> String {
    let plain = !word.is_empty() && word.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_./=:,@%+".contains(&b));
    if plain { word.to_string() } else { format!("'{}'", word.replace('\'', r"'\''")) }
}

/// `p` quoted for a POSIX shell.
pub fn sh_path(p: &std::path::Path) -> String {
    sh(&p.display().to_string())
}

/// `s` made safe inside HTML or XML text and attributes.
pub fn xml(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_back_text_is_shown_on_one_line_with_no_escape_reaching_the_terminal() {
        assert_eq!(shown("plain text, é ✓"), "plain text, é ✓");
        assert_eq!(shown("a\u{1b}[2Jb"), "a\\u{1b}[2Jb");
        assert_eq!(shown("one\ntwo\r"), "one\\u{a}two\\u{d}");
        assert_eq!(shown("\u{9b}31m \u{202e}gnp.exe"), "\\u{9b}31m \\u{202e}gnp.exe");
        assert!(!shown("\u{7f}\u{85}\t").chars().any(is_hidden));
        assert_eq!(for_terminal("line one\nline \u{1b}]0;title\u{7}two"), "line one\nline \\u{1b}]0;title\\u{7}two");
    }
}
