//! `zwang compare SCENE.toml`: the time stepper's exact Coulomb law and its
//! convex relaxation side by side along the scene's motion.

use crate::{emit, one_line, EXIT_BAD_INPUT, EXIT_OK};
use std::io::Write;
use std::path::Path;
use zwang::run::step_settings_of;
use zwang_motion::{compare_frictions, Comparison};

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
        let mut s = serde_json::json!({
            "steps": cmp.steps,
            "max_position_difference": cmp.max_position_difference,
            "max_separation_exact": cmp.max_separation_exact,
            "max_separation_convex": cmp.max_separation_convex,
            "rows": rows,
        })
        .to_string();
        s.push('\n');
        s
    } else {
        table(scene.name.as_deref().unwrap_or("scene"), &cmp)
    };
    emit(out, &report);
    EXIT_OK
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
}
