//! `zwang sweep SPEC [--shard i/n] [--threads N]`: a scene or an instant
//! over a grid of parameters, one JSON line per run.

use crate::{emit, one_line, read_text, EXIT_BAD_INPUT, EXIT_OK};
use std::io::Write;
use std::path::{Path, PathBuf};
use zwang::sweep::{points, row, run_points, shard, Spec};

/// Run a scene or an instant over a grid of parameters (`docs/sweeps.md`).
///
/// SPEC is a TOML file: `scene = "PATH"` or `instant = "PATH"` (relative to
/// the spec file), `outputs = ["status", "time", "final.ball.position"]`
/// (paths into the JSON of `zwang simulate --json`, or of `zwang solve
/// --json` with `check.KEY` and `compare.KEY`), and a `[grid]` table of
/// key paths to lists of values (`"contact.floor.restitution" = [0.3,
/// 0.5]`): one run per element of the cartesian product, the first key
/// varying slowest.
///
/// Prints one JSON object per line and per run, in order: `run` (its index
/// in the whole product), the parameters by key path, then the outputs.
/// `--shard i/n` runs only the i-th of n consecutive blocks (0-based `i`),
/// for batch schedulers: the n shards' lines, concatenated in shard order,
/// are the whole sweep's. A run that ends `painleve` or `failed` is a row
/// like any other.
///
/// Exit code 0 when every run of the shard ran, 2 for a malformed spec,
/// scene, instant or parameter value (one line on stderr naming the key,
/// nothing on stdout: every set is checked before any runs).
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub(crate) struct SweepArgs {
    /// The sweep specification (TOML).
    #[arg(value_name = "SPEC")]
    spec: PathBuf,
    /// Run only shard I of N (0-based), a block of consecutive runs.
    #[arg(long, value_name = "I/N", value_parser = parse_shard)]
    shard: Option<(usize, usize)>,
    /// Threads to run on (default: the machine's cores).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
}

/// `I/N` with `I < N`.
fn parse_shard(text: &str) -> Result<(usize, usize), String> {
    let (i, n) = text
        .split_once('/')
        .and_then(|(i, n)| Some((i.trim().parse().ok()?, n.trim().parse().ok()?)))
        .ok_or_else(|| format!("`{text}`: expected I/N, as 0/4"))?;
    if n == 0 || i >= n {
        return Err(format!("`{text}`: I must be below N, from 0"));
    }
    Ok((i, n))
}

pub(crate) fn run(args: &SweepArgs, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let fail = |err: &mut dyn Write, e: &str| {
        emit(err, &one_line("error: ", e));
        EXIT_BAD_INPUT
    };
    let text = match read_text(&args.spec) {
        Ok(text) => text,
        Err(e) => return fail(err, &format!("spec: {e}")),
    };
    let base = args.spec.parent().unwrap_or(Path::new("."));
    let spec = match Spec::parse(&text, |path| read_text(&base.join(path))) {
        Ok(spec) => spec,
        Err(e) => return fail(err, &e),
    };
    let all = points(&spec.lists);
    let (i, n) = args.shard.unwrap_or((0, 1));
    let range = shard(all.len(), i, n);
    let threads = args.threads.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });
    let rows = match run_points(
        &spec.subject,
        &spec.keys,
        &all[range.clone()],
        &spec.outputs,
        threads,
    ) {
        Ok(rows) => rows,
        Err(e) => return fail(err, &e),
    };
    let mut text = String::new();
    for (k, got) in range.zip(rows) {
        text += &row(k, &spec.keys, &all[k], &spec.outputs, &got);
        text.push('\n');
    }
    emit(out, &text);
    EXIT_OK
}

#[cfg(test)]
mod tests {
    use crate::test_support::run;
    use crate::{EXIT_BAD_INPUT, EXIT_OK};

    fn spec(name: &str, text: &str) -> String {
        let dir = std::env::temp_dir().join(format!("zwang-sweep-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let scenes = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/scenes");
        let path = dir.join(name);
        std::fs::write(&path, text.replace("SCENES", scenes)).unwrap();
        path.display().to_string()
    }

    /// The shards' lines, concatenated in order, are the whole sweep's.
    #[test]
    fn shards_make_the_whole_table() {
        let path = spec(
            "ball.toml",
            r#"
            scene = "SCENES/bouncing_ball.toml"
            outputs = ["status", "final.ball.position[1]", "events[0].kind"]
            [grid]
            "contact.floor.restitution" = [0.3, 0.5, 0.7]
            "scene.duration" = [0.2, 0.6]
            "#,
        );
        let (code, whole, err) = run(&["zwang", "sweep", &path]);
        assert_eq!(code, EXIT_OK, "{err}");
        let lines: Vec<serde_json::Value> = whole
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 6);
        assert_eq!(lines[1]["run"], 1);
        assert_eq!(lines[1]["contact.floor.restitution"], 0.3);
        assert_eq!(lines[1]["scene.duration"], 0.6);
        assert_eq!(lines[1]["status"], "finished");
        assert_eq!(lines[1]["events[0].kind"], "impact");
        assert!(lines[0]["events[0].kind"].is_null());
        let mut joined = String::new();
        for i in 0..4 {
            let shard = format!("{i}/4");
            let (code, out, err) =
                run(&["zwang", "sweep", &path, "--shard", &shard, "--threads", "1"]);
            assert_eq!(code, EXIT_OK, "{err}");
            joined += &out;
        }
        assert_eq!(joined, whole);
        let (code, out, err) = run(&["zwang", "sweep", &path, "--shard", "4/4"]);
        assert_eq!((code, out.is_empty()), (EXIT_BAD_INPUT, true), "{err}");
    }

    #[test]
    fn a_bad_parameter_is_one_line_naming_it() {
        let path = spec(
            "bad.toml",
            r#"
            scene = "SCENES/bouncing_ball.toml"
            [grid]
            "contact.floor.restitution" = [0.5, 1.5]
            "#,
        );
        let (code, out, err) = run(&["zwang", "sweep", &path]);
        assert_eq!(code, EXIT_BAD_INPUT);
        assert!(out.is_empty());
        assert_eq!(err.lines().count(), 1);
        assert!(err.contains("contact.floor.restitution"), "{err}");
    }
}
