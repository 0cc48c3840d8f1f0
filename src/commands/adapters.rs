//! `simreel adapters`: the GPUs and software adapters this machine offers, and which one renders.

pub fn run(choice: simreel::render::BackendChoice) -> anyhow::Result<()> {
    let list = simreel::render::device::list(choice);
    if list.is_empty() {
        return Err(simreel::render::device::missing(choice).into());
    }
    // with the vendor and driver a golden override matches
    for a in &list {
        let s = simreel::render::AdapterSummary::of(&a.get_info());
        println!("{s}; vendor \"{}\", driver \"{}\"", s.vendor, s.driver_words());
    }
    let request = simreel::render::AdapterRequest { backend: choice, name: None };
    let pick = simreel::render::device::pick(&request)?;
    let preferred = simreel::render::AdapterRequest::preference_words();
    let because = match preferred.is_empty() || !request.is_open() {
        true => String::new(),
        false => format!(" (preferred by {})", preferred.join(", ")),
    };
    println!("auto picks: {}{because}", simreel::render::AdapterSummary::of(&pick.get_info()));
    let lavapipe = simreel::render::device::summaries(simreel::render::BackendChoice::Vulkan).into_iter().find(|a| a.is_lavapipe());
    match lavapipe {
        Some(l) => println!("golden checks pick: {l} (lavapipe, the canonical goldens' adapter)"),
        None => println!(
            "golden checks pick: an adapter an override covers, else auto's; lavapipe, the canonical goldens' adapter, is missing: {}",
            simreel::render::device::lavapipe_install(simreel::render::device::read_os_release().as_deref())
        ),
    }
    Ok(())
}
