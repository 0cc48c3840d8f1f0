//! Frame specs: `0..59`, `1,3,5..10`, `-5..` — which frames of a scene to render or check.

/// Resolves a frame spec against a scene of `total` frames: comma-separated items, each a frame
/// (`7`, `-1` = the last), or an inclusive range `a..b` whose ends may be omitted (`..9`, `40..`)
/// or negative (counted from the end: `-5..` is the last five). Returns sorted, unique frames.
pub fn parse_frames(spec: &str, total: u32) -> Result<Vec<u32>, String> {
    if total == 0 {
        return Err("the scene has no frames".into());
    }
    let last = total as i64 - 1;
    let resolve = |t: &str, what: &str| -> Result<i64, String> {
        let v: i64 = t.trim().parse().map_err(|_| format!("\"{t}\" is not a frame number in \"{spec}\""))?;
        let v = if v < 0 { total as i64 + v } else { v };
        if v < 0 || v > last {
            return Err(format!("{what} {t} is outside the scene's frames 0..{last}"));
        }
        Ok(v)
    };
    let mut frames = Vec::new();
    for item in spec.split(',').map(str::trim) {
        if item.is_empty() {
            return Err(format!("empty item in frame spec \"{spec}\""));
        }
        if let Some((a, b)) = item.split_once("..") {
            let start = if a.trim().is_empty() { 0 } else { resolve(a, "frame")? };
            let end = if b.trim().is_empty() { last } else { resolve(b.trim_start_matches('='), "frame")? };
            if end < start {
                return Err(format!("range {item} runs backwards"));
            }
            frames.extend(start..=end);
        } else {
            frames.push(resolve(item, "frame")?);
        }
    }
    frames.sort_unstable();
    frames.dedup();
    Ok(frames.into_iter().map(|f| f as u32).collect())
}

/// Sorted frames written back as a frame spec: runs as `a..b`, the rest as single frames
/// (`0..29`, `3, 5, 8..12`).
pub fn frames_text(frames: &[u32]) -> String {
    let mut items = Vec::new();
    let mut k = 0;
    while k < frames.len() {
        let mut end = k;
        while end + 1 < frames.len() && frames[end + 1] == frames[end] + 1 {
            end += 1;
        }
        items.push(if end > k { format!("{}..{}", frames[k], frames[end]) } else { frames[k].to_string() });
        k = end + 1;
    }
    items.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_specs() {
        assert_eq!(parse_frames("0..3", 10).unwrap(), vec![0, 1, 2, 3]);
        assert_eq!(parse_frames("1,3,5..7", 10).unwrap(), vec![1, 3, 5, 6, 7]);
        assert_eq!(parse_frames("-5..", 60).unwrap(), (55..60).collect::<Vec<_>>());
        assert_eq!(parse_frames("..2", 60).unwrap(), vec![0, 1, 2]);
        assert_eq!(parse_frames("-1", 60).unwrap(), vec![59]);
        assert_eq!(parse_frames("40..45", 60).unwrap(), (40..=45).collect::<Vec<_>>());
        assert_eq!(parse_frames("3,1,1..2", 10).unwrap(), vec![1, 2, 3]);
        assert_eq!(parse_frames("0..=2", 10).unwrap(), vec![0, 1, 2]);
        assert!(parse_frames("5..2", 10).unwrap_err().contains("backwards"));
        assert!(parse_frames("10", 10).unwrap_err().contains("outside"));
        assert!(parse_frames("-11..", 10).unwrap_err().contains("outside"));
        assert!(parse_frames("a..3", 10).is_err());
        assert!(parse_frames("1,,2", 10).is_err());
    }

    #[test]
    fn frames_read_back_as_a_spec() {
        assert_eq!(frames_text(&[0, 1, 2, 3]), "0..3");
        assert_eq!(frames_text(&[3, 5, 8, 9, 10, 12]), "3, 5, 8..10, 12");
        assert_eq!(frames_text(&[]), "");
        let frames = parse_frames("1,4..7,9", 20).unwrap();
        assert_eq!(parse_frames(&frames_text(&frames), 20).unwrap(), frames);
    }
}
