//! `simreel dice stats`: the 1,000-roll study the dice issue asks to beat, run end to end.

use crate::common::simreel;

fn json_number(v: &serde_json::Value, key: &str) -> f64 {
    v[key].as_f64().unwrap_or_else(|| panic!("key {key} missing or not a number in {v}"))
}

#[test]
fn thousand_roll_study_is_fair_and_never_cocked() {
    let out = simreel()
        .args(["dice", "stats", "--dice", "3", "--seeds", "1..100", "--rolls-per-seed", "10", "--json", "--quiet"])
        .output()
        .expect("run simreel dice stats");
    assert!(out.status.success(), "dice stats failed: {}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object on stdout");
    let faces: Vec<u64> = v["face_counts"].as_array().expect("face_counts array").iter().map(|c| c.as_u64().expect("count")).collect();
    assert_eq!(faces.len(), 6);
    assert_eq!(faces.iter().sum::<u64>(), 3000, "3 dice × 1,000 rolls are read");
    assert_eq!(json_number(&v, "rolls"), 1000.0);
    // Recompute χ² from the counts so the reported statistic is checked, not trusted.
    let chi: f64 = faces.iter().map(|&c| (c as f64 - 500.0).powi(2) / 500.0).sum();
    assert!((chi - json_number(&v, "chi_square")).abs() < 1e-9, "chi_square disagrees with the face counts");
    assert!(chi < 11.07, "χ² = {chi:.2}: biased at α = 0.05 ({faces:?})");
    assert_eq!(json_number(&v, "cocked"), 0.0, "a roll ended with a cocked die");
    let settle = &v["settle_s"];
    let (median, p95, max) = (json_number(settle, "median"), json_number(settle, "p95"), json_number(settle, "max"));
    assert!(0.5 < median && median <= p95 && p95 <= max && max < 30.0, "settle times out of order: {settle}");
    assert_eq!(json_number(&v, "unsettled"), 0.0, "a roll was still moving after 30 s");
    let lowest = json_number(&v, "lowest_confidence");
    assert!((0.86..=1.0).contains(&lowest), "the least square die read at {lowest}: cocked (below cos 30.7°) or not a cosine");
    // Some dice do come to rest cocked (the seed saw 18 of 1,000 rolls), and the nudge frees every
    // one of them: nudges happen, and rarely. More than one roll in 20 needing one would mean dice
    // often rest cocked, which the seed's physics did not show either.
    let nudges = json_number(&v, "nudges");
    assert!((1.0..=50.0).contains(&nudges), "{nudges} nudges in 1,000 rolls");
    assert!(json_number(&v, "fence_contacts") > 0.0, "no die ever touched the fence in 1,000 rolls?");
}

/// The study's summary for `dice` dice, seeds 1–100, one roll each.
fn hundred_rolls(dice: usize) -> serde_json::Value {
    let out = simreel()
        .args(["dice", "stats", "--dice", &dice.to_string(), "--seeds", "1..100", "--rolls-per-seed", "1", "--json", "--quiet"])
        .output()
        .expect("run simreel dice stats");
    assert!(out.status.success(), "dice stats failed: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("one JSON object on stdout")
}

#[test]
fn every_count_from_1_to_12_comes_to_rest_flat() {
    // Dice resting on and against dice settle like dice on the table: for every count the scene
    // allows, 100 rolls with none still moving after 30 s and none cocked, and a full table takes
    // no more than twice as long as three dice to come to rest.
    let three = hundred_rolls(3);
    let (three_settle, three_result) = (json_number(&three["settle_s"], "median"), json_number(&three["result_s"], "median"));
    for dice in 1..=12 {
        let v = if dice == 3 { three.clone() } else { hundred_rolls(dice) };
        assert_eq!(json_number(&v, "rolls"), 100.0);
        assert_eq!(json_number(&v, "unsettled"), 0.0, "{dice} dice: rolls still moving after 30 s");
        assert_eq!(json_number(&v, "cocked"), 0.0, "{dice} dice: rolls ended cocked (lowest confidence {})", v["lowest_confidence"]);
        let (settle, result) = (json_number(&v["settle_s"], "median"), json_number(&v["result_s"], "median"));
        assert!(settle <= 2.0 * three_settle, "{dice} dice: settle median {settle:.2} s, three dice {three_settle:.2} s");
        assert!(result <= 2.0 * three_result, "{dice} dice: result median {result:.2} s, three dice {three_result:.2} s");
    }
}

#[test]
fn human_table_names_every_figure() {
    let out = simreel().args(["dice", "stats", "--dice", "2", "--seeds", "5", "--rolls-per-seed", "2", "--quiet"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    for word in ["faces", "chi-square", "settle (s)", "cocked", "nudges", "fence contacts"] {
        assert!(text.contains(word), "table lacks {word:?}:\n{text}");
    }
}

#[test]
fn bad_study_arguments_exit_with_code_2() {
    for args in [
        &["dice", "stats", "--dice", "0"][..],
        &["dice", "stats", "--dice", "99"],
        &["dice", "stats", "--seeds", "9..3"],
        &["dice", "stats", "--seeds", "x"],
        &["dice", "stats", "--firmness", "120"],
        &["dice", "stats", "--rolls-per-seed", "0"],
    ] {
        let out = simreel().args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?} should be refused: {}", String::from_utf8_lossy(&out.stderr));
    }
}

#[test]
fn one_of_anything_is_said_in_the_singular() {
    let out = simreel().args(["dice", "stats", "--dice", "1", "--seeds", "3", "--rolls-per-seed", "1", "--threads", "1"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let (table, err) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(table.starts_with("1 die, seeds 3..3, 1 roll each: 1 roll, 1 die read, firmness 55"), "{table}");
    assert!(err.contains(" s on 1 thread\n"), "{err}");
}
