//! Words for people: a count with its noun in the right number ("1 frame", "3 frames").

/// `n` and the noun that goes with it: `one` for exactly one, `many` otherwise (also for 0).
pub fn count(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_is_singular_and_everything_else_plural() {
        assert_eq!(count(1, "frame", "frames"), "1 frame");
        assert_eq!(count(0, "frame", "frames"), "0 frames");
        assert_eq!(count(2, "die", "dice"), "2 dice");
        assert_eq!(count(1, "die", "dice"), "1 die");
    }
}
