//! The pictures of `docs/images` are what the README's commands draw
//! today: each `cargo run --release -- ...` line of the README that writes
//! into `docs/images` is run by the built binary into a scratch folder and
//! its picture compared byte for byte with the committed one, and every
//! picture there is made by such a line. A stale picture fails here;
//! `scripts/regenerate_images.sh` redraws them all.

use crate::common::{repo, zwang};

/// The README's commands that write into `docs/images`, as arguments of
/// `zwang` (the comment after `#` left out).
fn image_commands() -> Vec<Vec<String>> {
    let readme = std::fs::read_to_string(repo("README.md")).unwrap();
    readme
        .lines()
        .filter_map(|line| line.strip_prefix("cargo run --release -- "))
        .map(|rest| rest.split('#').next().unwrap_or(""))
        .filter(|command| command.contains("docs/images/"))
        .map(|command| command.split_whitespace().map(String::from).collect())
        .collect()
}

#[test]
fn the_readme_pictures_are_what_its_commands_draw() {
    let commands = image_commands();
    assert!(commands.len() >= 3, "{commands:?}");
    let scratch = std::env::temp_dir().join(format!("zwang-readme-images-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).unwrap();
    let mut drawn = Vec::new();
    for command in &commands {
        let mut out = None;
        let args: Vec<String> = command
            .iter()
            .map(|a| match a.strip_prefix("docs/images/") {
                Some(name) => {
                    out = Some(name.to_string());
                    scratch.join(name).to_string_lossy().into_owned()
                }
                None => a.clone(),
            })
            .collect();
        let name = out.expect("a picture's name");
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = zwang(&refs);
        assert!(
            o.status.success(),
            "zwang {args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let fresh = std::fs::read(scratch.join(&name)).unwrap();
        let committed = std::fs::read(repo("docs/images").join(&name)).unwrap();
        assert!(
            fresh == committed,
            "docs/images/{name} is stale: run scripts/regenerate_images.sh"
        );
        drawn.push(name);
    }
    let mut shipped: Vec<String> = std::fs::read_dir(repo("docs/images"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    shipped.sort();
    drawn.sort();
    assert_eq!(
        shipped, drawn,
        "every picture in docs/images made by a README command"
    );
    std::fs::remove_dir_all(scratch).unwrap();
    assert!(repo("scripts/regenerate_images.sh").is_file());
}
