//! `simreel cargo probe`: the seed's checks measured through the command a user runs.

use crate::common::{root, simreel};

#[test]
fn cargo_probe_measures_the_seeds_springs_against_the_theory() {
    let o =
        simreel().args(["cargo", "probe", "--json"]).arg(root().join("scenes/cargo_walk.toml")).arg("--fill").arg("0.3").output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let links = v["links"].as_array().unwrap();
    assert_eq!(links.len(), 3);
    // the seed's light-load table: Bottom 16.3 %, Middle 27.5 %, Top 34.6 % overshoot
    for (l, expected) in links.iter().zip([0.163, 0.275, 0.346]) {
        let theory = l["theory"]["overshoot"].as_f64().unwrap();
        let exact = l["exact_120"]["overshoot"].as_f64().unwrap();
        assert!((theory - expected).abs() < 5e-4, "{l}");
        assert!((exact - theory).abs() < 1e-3, "{l}");
        assert!((l["exact_120"]["period_s"].as_f64().unwrap() - l["theory"]["period_s"].as_f64().unwrap()).abs() < 1e-3);
    }
    for l in v["long_frames"].as_array().unwrap() {
        let beyond = l["beyond_limit"].as_f64().unwrap();
        match l["integrator"].as_str().unwrap() {
            "euler_split" => assert!(beyond > 10.0, "{l}"),
            _ => assert!(beyond < 0.15, "{l}"),
        }
    }
    let dropped: Vec<f64> = v["dropped_of_1s_hitch"].as_array().unwrap().iter().map(|d| d["seconds"].as_f64().unwrap()).collect();
    assert_eq!(dropped[0], 0.0);
    assert!((dropped[1] - (1.0 - 8.0 / 120.0)).abs() < 1e-9, "{dropped:?}");
    // a scene of another kind is refused by name; a fill outside 0..1 by clap
    let o = simreel().args(["cargo", "probe"]).arg(root().join("scenes/flock.toml")).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("flock.toml is a flock scene; `cargo probe` takes a cargo scene"));
    let o = simreel().args(["cargo", "probe", "--fill", "1.5"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
}
