//! The text reports as a newcomer reads them: six significant digits in
//! one style, round-off shown as 0, the first and last events, settings
//! overridden on the command line said in the report, errors that point
//! to the right command or key.

// Not every shared helper is used here.
#[allow(dead_code)]
use crate::common;
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

#[test]
fn duration_and_time_step_replace_the_scenes_and_the_report_says_so() {
    let scene = repo("examples/scenes/contact/disk_thrown.toml");
    let scene = scene.to_str().unwrap();
    let (code, text, _) = run(&[
        "simulate",
        scene,
        "--duration",
        "0.25",
        "--time-step",
        "0.0005",
    ]);
    assert_eq!(code, 0, "{text}");
    assert!(
        text.starts_with("finished at t = 0.25 s after 500 steps"),
        "{text}"
    );
    assert!(
        text.contains(
            "set on the command line: scene.duration = 0.25 s, solver.time_step = 0.0005 s"
        ),
        "{text}"
    );
    let (code, json, _) = run(&["simulate", scene, "--duration", "0.25", "--json"]);
    assert_eq!(code, 0, "{json}");
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(json["time"], 0.25);
    assert_eq!(json["overrides"]["scene.duration"], 0.25);
    assert!(json["overrides"].get("solver.time_step").is_none());
    // Without the flags, no overrides.
    let (_, json, _) = run(&["simulate", scene, "--json"]);
    assert!(!json.contains("overrides"), "{json}");

    // Checked as the file's own values, the flag named.
    for (args, says) in [
        (
            &["--time-step", "5"][..],
            "solver.time_step: 5 s must be <= scene.duration (1 s) (with --time-step 5)",
        ),
        (
            &["--duration", "-1"],
            "--duration: must be a finite number > 0",
        ),
        (
            &["--time-step", "nan"],
            "--time-step: must be a finite number > 0",
        ),
    ] {
        let mut all = vec!["simulate", scene];
        all.extend(args);
        let (code, out, err) = run(&all);
        assert_eq!((code, out.as_str()), (2, ""), "{args:?}");
        assert_eq!(err.trim_end(), says, "{args:?}");
    }
    // An event-driven scene has no time step to replace.
    let ball = repo("examples/scenes/bouncing_ball.toml");
    let (code, _, err) = run(&["simulate", ball.to_str().unwrap(), "--time-step", "0.01"]);
    assert_eq!(code, 2);
    assert!(
        err.starts_with("solver.time_step: only with stepping = \"timestep\""),
        "{err}"
    );
    assert!(err.trim_end().ends_with("(with --time-step 0.01)"), "{err}");
}

#[test]
fn a_file_of_the_other_kind_names_the_command_that_reads_it() {
    let instant = repo("examples/pendulum.json");
    let (code, _, err) = run(&["simulate", instant.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(
        err.contains("this is a JSON file: an instant is read by `zwang solve`"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    let scene = repo("examples/scenes/pendulum.toml");
    for command in ["solve", "check"] {
        let (code, _, err) = run(&[command, scene.to_str().unwrap()]);
        assert_eq!(code, 2, "{command}");
        assert!(
            err.contains("this is a scene file: run it with `zwang simulate FILE`"),
            "{command}: {err}"
        );
        assert_eq!(err.lines().count(), 1, "{err}");
    }
}

#[test]
fn round_off_is_not_called_a_finding() {
    let suite = repo("tests/data/friction");
    let (code, table, err) = run(&["compare", suite.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let row = |name: &str| -> Vec<String> {
        let line = table
            .lines()
            .find(|l| l.starts_with(&format!("| {name} ")))
            .unwrap_or_else(|| panic!("{name} in {table}"));
        line.trim_matches('|')
            .split('|')
            .map(|c| c.trim().to_owned())
            .collect()
    };
    // Equal mu: friction moves the normal forces but not their sum, so the
    // forms agree to round-off (1.8e-15 against 9.81): no difference.
    let equal = row("box_two_corners_equal_mu");
    assert_eq!(equal[2], "not_equivalent (QP exact)");
    assert_eq!(&equal[3..8], ["0", "0", "0", "0", "0"], "{equal:?}");
    // A nilpotent D^-1 C computed as 2.2e-16 is no coupling.
    assert_eq!(row("box_two_corners_painleve")[3], "0");
    // Real differences keep their size, in one style (not 2.2e1).
    let tipping = row("box_two_corners_tipping");
    assert_eq!((tipping[3].as_str(), tipping[4].as_str()), ("0.75", "22"));

    let instant = repo("tests/data/friction/box_two_corners_equal_mu.json");
    let (_, text, _) = run(&["check", instant.to_str().unwrap()]);
    assert!(
        text.contains("verdict: not_equivalent (coupling 0)"),
        "{text}"
    );
    assert!(text.contains("kappa 0.225, G = 1.96"), "{text}");
}

/// The number after `what` in a report line of `body`.
fn measured(text: &str, body: &str, what: &str) -> f64 {
    let line = text
        .lines()
        .find(|l| l.starts_with(&format!("  {body}: ")) && l.contains(what))
        .unwrap_or_else(|| panic!("no `{what}` for {body} in {text}"));
    let after = &line[line.find(what).unwrap() + what.len()..];
    after
        .split_whitespace()
        .next()
        .unwrap()
        .trim_end_matches(',')
        .parse()
        .unwrap()
}

#[test]
fn the_spatial_reports_say_the_period_and_the_precession_their_readme_lines_promise() {
    let report = |scene: &str| {
        let path = repo(&format!("examples/scenes/space/{scene}.toml"));
        let (code, text, err) = run(&["simulate", path.to_str().unwrap()]);
        assert_eq!(code, 0, "{scene}: {err}");
        text
    };
    let g = 9.81;
    // A ball (radius 0.05 m) on a 1 m rod let go at 0.05 rad: the compound
    // pendulum's small swings, corrected for the amplitude.
    let (l, a, theta0) = (1.0_f64, 0.05_f64, 0.05_f64);
    let small = 2.0 * std::f64::consts::PI * ((l * l + 0.4 * a * a) / (g * l)).sqrt();
    let expected = small * (1.0 + theta0 * theta0 / 16.0);
    let period = measured(&report("spherical_pendulum"), "bob", "swings with period ");
    assert!(
        (period - expected).abs() < 2e-4 * expected,
        "{period} against {expected}"
    );
    // The plate on its hinge at 1 rad: the exact period by the complete
    // elliptic integral (Gauss's arithmetic-geometric mean).
    let (mut x, mut y) = (1.0_f64, 0.5_f64.cos());
    for _ in 0..30 {
        (x, y) = ((x + y) / 2.0, (x * y).sqrt());
    }
    let (inertia, m, d) = (0.4, 3.0, 0.3);
    let exact = 2.0 * std::f64::consts::PI * (inertia / (m * g * d)).sqrt() / x;
    let period = measured(
        &report("hinged_pendulum_event"),
        "plate",
        "swings with period ",
    );
    assert!(
        (period - exact).abs() < 1e-5 * exact,
        "{period} against {exact}"
    );
    // Goldstein's slow steady precession of the top: m g l = Omega (I3 w3
    // - I1' Omega cos theta), I1' = I1 + m l^2, solved for the slow root.
    let (m, l, i1, i3, w3, theta) = (1.0, 0.1, 0.002, 0.004, 200.0, 30f64.to_radians());
    let i1p = i1 + m * l * l;
    let (qa, qb, qc) = (i1p * theta.cos(), -i3 * w3, m * g * l);
    let omega = (-qb - (qb * qb - 4.0 * qa * qc).sqrt()) / (2.0 * qa);
    let rate = measured(&report("spinning_top"), "top", "turns about z at ");
    assert!(
        (rate - omega).abs() < 5e-4 * omega,
        "{rate} against {omega}"
    );
    // Bodies that settle in a bin neither swing nor turn.
    let bin = report("boxes_in_bin");
    assert!(!bin.contains("swings") && !bin.contains("turns"), "{bin}");
}
