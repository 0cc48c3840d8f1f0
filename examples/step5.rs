use simreel::sim::dice::world::Table;
use simreel::sim::rng::Rng;
fn main() {
    let n: usize = std::env::args().nth(1).map_or(5, |s| s.parse().unwrap());
    let mut t = Table::single(&vec![55.0; n], Rng::new(7));
    t.throw(0);
    for _ in 0..192 {
        t.step();
    }
    let base = t.clone();
    let start = std::time::Instant::now();
    let mut best = f64::MAX;
    for _ in 0..(if std::env::var("ONE").is_ok() { 5 } else { 200 }) {
        let mut t = base.clone();
        let s = std::time::Instant::now();
        for _ in 0..10 {
            t.step();
        }
        best = best.min(s.elapsed().as_secs_f64() / 10.0);
    }
    println!("{n} dice: best {:.1} µs per step ({:.1} s)", best * 1e6, start.elapsed().as_secs_f64());
}
