//! The text reports as a newcomer reads them: six significant digits in
//! one style, round-off shown as 0, the first and last events, settings
//! overridden on the command line said in the report, errors that point
//! to the right command or key.

// Not every shared helper is used here.
#[allow(dead_code)]
mod common;
use common::{repo, stderr, stdout, zwang};

fn run(args: &[&str]) -> (i32, String, String) {
    let out = zwang(args);
    (out.status.code().unwrap_or(-1), stdout(&out), stderr(&out))
}

/// Every number of a line: the words that parse as one.
fn numbers_in(line: &str) -> Vec<&str> {
    line.split(|c: char| c.is_whitespace() || ",[]()".contains(c))
        .filter(|w| w.parse::<f64>().is_ok())
        .collect()
}

#[test]
fn the_bouncing_ball_shows_its_rest_and_a_zero_energy() {
    let scene = repo("examples/scenes/bouncing_ball.toml");
    let (code, text, _) = run(&["simulate", scene.to_str().unwrap()]);
    assert_eq!(code, 0, "{text}");
    // The README's promise: impacts accumulate until it comes to rest.
    let last_event = text.lines().rfind(|l| l.starts_with("  t = ")).unwrap();
    assert!(last_event.contains("rest"), "{text}");
    assert!(text.contains("more events ..."), "{text}");
    // The energy at rest (2.5e-20 J against 9.81) is round-off.
    assert!(text.contains("energy 9.81 -> 0 J"), "{text}");
    assert!(
        text.contains("ball: position [0, 0], velocity [0, 0]"),
        "{text}"
    );
}

#[test]
fn every_number_of_a_text_report_has_at_most_six_significant_digits() {
    for scene in [
        "examples/scenes/rocking_block.toml",
        "examples/scenes/double_pendulum.toml",
        "examples/scenes/contact/disk_thrown.toml",
        "examples/scenes/space/spherical_pendulum.toml",
    ] {
        let path = repo(scene);
        let (code, text, _) = run(&["simulate", path.to_str().unwrap()]);
        assert_eq!(code, 0, "{scene}: {text}");
        for line in text.lines() {
            for n in numbers_in(line) {
                let mantissa = n.split('e').next().unwrap();
                let digits = mantissa
                    .chars()
                    .filter(char::is_ascii_digit)
                    .collect::<String>();
                let significant = digits.trim_start_matches('0').len();
                assert!(significant <= 6, "{scene}: {n} in {line}");
                // One style: no `{:e}` of a plain number (`2.2e1`).
                if let Some((_, exp)) = n.split_once('e') {
                    let exp: i32 = exp.parse().unwrap();
                    assert!(!(-4..6).contains(&exp), "{scene}: {n} in {line}");
                }
            }
        }
    }
}
