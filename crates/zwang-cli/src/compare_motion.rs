//! `zwang compare SCENE.toml`: the time stepper's exact Coulomb law and its
//! convex relaxation side by side along the scene's motion; for a scene
//! with `equations = "vakonomic"`, its nonholonomic and vakonomic motions
//! from the same start.

use crate::{emit, one_line, EXIT_BAD_INPUT, EXIT_OK};
use std::io::Write;
use std::path::Path;
use zwang::run::{settings_of, step_settings_of};
use zwang_model::planar::PlanarModel;
use zwang_motion::{compare_equations, compare_frictions, Comparison, EquationsComparison};
use zwang_scene::{Equations, Scene};

/// The most rows the comparison writes (`duration / output_every`).
const MAX_ROWS: f64 = 1e7;

/// What to write besides the report.
pub(crate) struct Outputs<'a> {
    /// JSON instead of the table.
    pub json: bool,
    /// The rows as CSV.
    pub csv: Option<&'a Path>,
    /// Both curves against time (PNG).
    pub plot: Option<&'a Path>,
}

/// Runs both friction laws on the scene at `path` and reports how far they
/// part: a table (or JSON), a CSV and a plot when asked.
pub(crate) fn run(
    path: &Path,
    outputs: &Outputs<'_>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    let (json, csv) = (outputs.json, outputs.csv);
    let fail = |err: &mut dyn Write, message: &str| {
        emit(err, &one_line("", message));
        EXIT_BAD_INPUT
    };
    let Some((scene, model)) = crate::load_scene(path, err) else {
        return EXIT_BAD_INPUT;
    };
    if scene.duration / scene.output_every > MAX_ROWS {
        return fail(
            err,
            &format!("scene.output_every: more than {MAX_ROWS:e} rows over the duration"),
        );
    }
    if scene.solver.equations == Equations::Vakonomic {
        return run_equations(&scene, &model, outputs, out, err);
    }
    let cmp = match compare_frictions(&model, scene.duration, &step_settings_of(&scene)) {
        Ok(c) => c,
        // A step left unsolved is an answer not found, not bad input.
        Err(e @ zwang_motion::StepError::Unsolved { .. }) => {
            emit(
                err,
                &one_line(
                    "",
                    &format!("not compared: {e} (unconverged answers are not compared)"),
                ),
            );
            return crate::EXIT_UNSOLVED;
        }
        Err(e) => return fail(err, &format!("the time stepper: {e}")),
    };
    if let Some(csv) = csv {
        if let Err(e) = write_csv(csv, &cmp) {
            return fail(err, &format!("csv: cannot write {}: {e}", csv.display()));
        }
    }
    if let Some(plot) = outputs.plot {
        let title = scene.name.as_deref().unwrap_or("scene");
        if let Err(e) = zwang_draw::plot::write_comparison_png(&cmp, title, plot) {
            return fail(err, &format!("plot: cannot write {}: {e}", plot.display()));
        }
    }
    let report = if json {
        let rows: Vec<serde_json::Value> = cmp
            .rows
            .iter()
            .map(|r| {
                serde_json::json!({
                    "t": r.t,
                    "position_difference": r.position_difference,
                    "separation_exact": r.separation_exact,
                    "separation_convex": r.separation_convex,
                })
            })
            .collect();
        json_line(serde_json::json!({
            "steps": cmp.steps,
            "max_position_difference": cmp.max_position_difference,
            "max_separation_exact": cmp.max_separation_exact,
            "max_separation_convex": cmp.max_separation_convex,
            "rows": rows,
        }))
    } else {
        table(scene.name.as_deref().unwrap_or("scene"), &cmp)
    };
    emit(out, &report);
    EXIT_OK
}

/// A JSON report on one line.
fn json_line(value: serde_json::Value) -> String {
    let mut s = value.to_string();
    s.push('\n');
    s
}

/// Runs a vakonomic scene under both equations from its start and reports
/// how far the motions part: a table (or JSON) and a CSV when asked.
fn run_equations(
    scene: &Scene,
    model: &PlanarModel,
    outputs: &Outputs<'_>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    if outputs.plot.is_some() {
        emit(
            err,
            "--plot: only for the friction laws, not equations = \"vakonomic\"\n",
        );
        return EXIT_BAD_INPUT;
    }
    let multipliers = &scene.solver.vakonomic_multipliers;
    let cmp = compare_equations(model, scene.duration, &settings_of(scene), multipliers);
    for (name, run) in [
        ("nonholonomic", &cmp.nonholonomic),
        ("vakonomic", &cmp.vakonomic),
    ] {
        if let Some(reason) = &run.reason {
            emit(
                err,
                &one_line("", &format!("the {name} run failed: {reason}")),
            );
            return crate::EXIT_UNSOLVED;
        }
    }
    if let Some(csv) = outputs.csv {
        if let Err(e) = write_equations_csv(csv, &cmp) {
            emit(
                err,
                &one_line("", &format!("csv: cannot write {}: {e}", csv.display())),
            );
            return EXIT_BAD_INPUT;
        }
    }
    let energy = |o: &zwang_motion::Outcome| [o.energy_initial, o.energy_final];
    let report = if outputs.json {
        let rows: Vec<serde_json::Value> = cmp
            .rows
            .iter()
            .map(|r| {
                serde_json::json!({
                    "t": r.t,
                    "position_difference": r.position_difference,
                    "nonholonomic": r.nonholonomic,
                    "vakonomic": r.vakonomic,
                })
            })
            .collect();
        json_line(serde_json::json!({
            "equations": ["nonholonomic", "vakonomic"],
            "max_position_difference": cmp.max_position_difference,
            "energy": {
                "nonholonomic": energy(&cmp.nonholonomic),
                "vakonomic": energy(&cmp.vakonomic),
            },
            "multipliers": cmp.vakonomic.multipliers,
            "rows": rows,
        }))
    } else {
        equations_table(scene.name.as_deref().unwrap_or("scene"), &cmp)
    };
    emit(out, &report);
    EXIT_OK
}

/// Both motions as a Markdown table with a summary.
fn equations_table(title: &str, cmp: &EquationsComparison) -> String {
    let mut s = format!(
        "{title}: the nonholonomic equations (Gauss's principle) against the vakonomic ones, \
         from the same start\n\n\
         | t (s) | position difference | q, nonholonomic | q, vakonomic |\n\
         |---|---|---|---|\n"
    );
    let list = |q: &[f64]| {
        q.iter()
            .map(|x| format!("{x:.6}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    for r in &cmp.rows {
        s.push_str(&format!(
            "| {:.6} | {:.3e} | {} | {} |\n",
            r.t,
            r.position_difference,
            list(&r.nonholonomic),
            list(&r.vakonomic)
        ));
    }
    let (nh, vk) = (&cmp.nonholonomic, &cmp.vakonomic);
    s.push_str(&format!(
        "\nlargest position difference {:.3e}; energy {} -> {} J nonholonomic, {} -> {} J \
         vakonomic; multipliers at the end {:?}\n",
        cmp.max_position_difference,
        nh.energy_initial,
        nh.energy_final,
        vk.energy_initial,
        vk.energy_final,
        vk.multipliers.as_deref().unwrap_or(&[])
    ));
    s
}

/// `t,position_difference,nonholonomic.q0,...,vakonomic.q0,...`, a row
/// per sample.
fn write_equations_csv(path: &Path, cmp: &EquationsComparison) -> std::io::Result<()> {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path)?);
    let n = cmp.rows.first().map_or(0, |r| r.nonholonomic.len());
    let mut header = vec!["t".to_string(), "position_difference".to_string()];
    for name in ["nonholonomic", "vakonomic"] {
        header.extend((0..n).map(|i| format!("{name}.q{i}")));
    }
    writeln!(f, "{}", header.join(","))?;
    for r in &cmp.rows {
        let mut line = vec![r.t.to_string(), r.position_difference.to_string()];
        line.extend(
            r.nonholonomic
                .iter()
                .chain(&r.vakonomic)
                .map(|x| x.to_string()),
        );
        writeln!(f, "{}", line.join(","))?;
    }
    f.flush()
}

/// The comparison as a Markdown table with a summary.
fn table(title: &str, cmp: &Comparison) -> String {
    let mut s = format!(
        "{title}: exact Coulomb against its convex relaxation, {} steps each\n\n\
         | t (s) | position difference (m) | separation, exact (m/s) | separation, convex (m/s) |\n\
         |---|---|---|---|\n",
        cmp.steps
    );
    for r in &cmp.rows {
        s.push_str(&format!(
            "| {:.6} | {:.3e} | {:.3e} | {:.3e} |\n",
            r.t, r.position_difference, r.separation_exact, r.separation_convex
        ));
    }
    s.push_str(&format!(
        "\nlargest over every step: position difference {:.3e} m; separation of a pushing \
         contact {:.3e} m/s exact, {:.3e} m/s convex (mu |u_T| where it slides)\n",
        cmp.max_position_difference, cmp.max_separation_exact, cmp.max_separation_convex
    ));
    s
}

/// `t,position_difference,separation_exact,separation_convex`, a row per
/// sample.
fn write_csv(path: &Path, cmp: &Comparison) -> std::io::Result<()> {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path)?);
    writeln!(
        f,
        "t,position_difference,separation_exact,separation_convex"
    )?;
    for r in &cmp.rows {
        writeln!(
            f,
            "{},{},{},{}",
            r.t, r.position_difference, r.separation_exact, r.separation_convex
        )?;
    }
    f.flush()
}

#[cfg(test)]
mod tests {
    use crate::{run_with, EXIT_BAD_INPUT, EXIT_OK};

    /// A puck (a particle with a disk) sliding at 2 m/s on a floor, both
    /// of the default friction 0.5: the convex form glides off at
    /// `mu (v0 - mu g h) / (1 + mu^2)` in its first step, Coulomb's law
    /// not at all; the rows are written to the CSV, the curves to a PNG; a
    /// malformed scene is one line and exit 2.
    #[test]
    fn a_scene_compares_the_two_friction_laws_along_its_motion() {
        let dir = std::env::temp_dir().join(format!("zwang-compare-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let scene = dir.join("puck.toml");
        std::fs::write(
            &scene,
            r#"
            [scene]
            dimension = 2
            duration = 0.1
            output_every = 0.05
            [[body]]
            name = "floor"
            kind = "fixed"
            shape = { kind = "halfplane", normal = [0.0, 1.0] }
            [[body]]
            name = "puck"
            kind = "particle"
            mass = 1.0
            position = [0.0, 0.1]
            velocity = [2.0, 0.0]
            shape = { kind = "circle", radius = 0.1 }
            "#,
        )
        .unwrap();
        let (csv, plot) = (dir.join("rows.csv"), dir.join("cmp.png"));
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let args = ["zwang", "compare", "--json", "--csv"];
        let code = run_with(
            args.iter().map(|s| s.to_string()).chain([
                csv.display().to_string(),
                "--plot".into(),
                plot.display().to_string(),
                scene.display().to_string(),
            ]),
            &mut out,
            &mut err,
        );
        assert_eq!(code, EXIT_OK, "{}", String::from_utf8_lossy(&err));
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        let (mu, g, h, v0) = (0.5, 9.81, 0.002, 2.0);
        let glide = mu * (v0 - mu * g * h) / (1.0 + mu * mu);
        let convex = v["max_separation_convex"].as_f64().unwrap();
        assert!((convex - glide).abs() < 1e-9, "{convex} vs {glide}");
        assert!(v["max_separation_exact"].as_f64().unwrap() < 1e-9);
        assert_eq!(v["steps"], 50);
        let rows = std::fs::read_to_string(&csv).unwrap();
        assert_eq!(rows.lines().count(), 1 + 3, "{rows}");
        let png = std::fs::read(&plot).unwrap();
        assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"));
        std::fs::write(&scene, "[scene]\ndimension = 2\n").unwrap();
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let code = run_with(
            [
                "zwang".to_string(),
                "compare".into(),
                scene.display().to_string(),
            ],
            &mut out,
            &mut err,
        );
        assert_eq!(code, EXIT_BAD_INPUT);
        assert!(out.is_empty());
        assert_eq!(String::from_utf8_lossy(&err).lines().count(), 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The shipped vakonomic skate (a blade through the centre, `m = 1`,
    /// started at `v0 = 1` along it, the multiplier at 0): `simulate
    /// --json` ends with the multiplier `-m v0 sin(theta - theta0)` of
    /// its own final angle; `compare` runs both equations from the start
    /// (the nonholonomic angle `w0 t = 5`, the two apart), with a CSV of
    /// both motions and one line for `--plot`.
    #[test]
    fn a_vakonomic_scene_prints_its_multipliers_and_compares_the_equations() {
        let scene = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../examples/scenes/vakonomic_skate.toml"
        );
        let run = |args: &[&str]| {
            let (mut out, mut err) = (Vec::new(), Vec::new());
            let code = run_with(
                ["zwang"].iter().chain(args).map(|s| s.to_string()),
                &mut out,
                &mut err,
            );
            (code, out, String::from_utf8_lossy(&err).into_owned())
        };
        let (code, out, err) = run(&["simulate", scene, "--json"]);
        assert_eq!(code, EXIT_OK, "{err}");
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        let theta = v["final"]["skate"]["angle"].as_f64().unwrap();
        let mu = v["multipliers"][0].as_f64().unwrap();
        assert!((mu + theta.sin()).abs() < 1e-6, "{mu} vs {theta}");
        let (code, out, _) = run(&["simulate", scene]);
        assert_eq!(code, EXIT_OK);
        assert!(String::from_utf8_lossy(&out).contains("vakonomic multipliers ["));

        let dir = std::env::temp_dir().join(format!("zwang-equations-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let csv = dir.join("both.csv");
        let csv_arg = csv.display().to_string();
        let (code, out, err) = run(&["compare", scene, "--json", "--csv", &csv_arg]);
        assert_eq!(code, EXIT_OK, "{err}");
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        let rows = v["rows"].as_array().unwrap();
        assert_eq!(rows.len(), 501);
        let last = &rows[500]["nonholonomic"];
        assert!((last[2].as_f64().unwrap() - 5.0).abs() < 1e-6, "{last}");
        assert!(v["max_position_difference"].as_f64().unwrap() > 1.0);
        assert_eq!(v["multipliers"].as_array().unwrap().len(), 1);
        let text = std::fs::read_to_string(&csv).unwrap();
        assert_eq!(text.lines().count(), 1 + 501);
        assert!(text.starts_with("t,position_difference,nonholonomic.q0,"));
        let png = dir.join("both.png").display().to_string();
        let (code, out, err) = run(&["compare", scene, "--plot", &png]);
        assert_eq!(code, EXIT_BAD_INPUT);
        assert!(out.is_empty());
        assert_eq!(err.lines().count(), 1, "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
