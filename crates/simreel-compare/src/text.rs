//! Words for people and for shells.

/// `n` and the noun that goes with it: `one` for exactly one, `many` otherwise (also for 0).
pub fn count(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
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
