//! `zwang check`: the equivalence verdict of one instant.

use crate::{emit, InstantFile, EXIT_BAD_INPUT, EXIT_OK};
use std::io::Write;
use zwang_harness::json::pretty;
use zwang_harness::{checked, CheckJson};

/// Check one instant: is the minimum (QP) form exact, is there a rigid answer?
///
/// Is the minimum form of Gauss's principle exact at this instant (does
/// it give the Newton answer), and does a rigid answer exist at all
/// (Painleve)? Cheap: no QP is solved. The checker reads the contact operators of the
/// `friction` entries: `D = J_n M^-1 J_n^T`, `C = J_n M^-1 J_t^T mu S`,
/// `G = D - C` (with the other rows' constraints taken into account).
///
/// With `--json`, prints one object with the keys `verdict`, `coupling`,
/// `contacts` [{`index`, `verdict`, `coupling`, `reason`}] (one per
/// `friction` entry) and `reason`, as `docs/instant-format.md` specifies,
/// plus the matrices it was decided from: `d`, `c`, `g`
/// (per contact), `free_normal_acceleration`, `p_matrix` (null when a group
/// of coupled contacts is too large to enumerate) and `frozen_exact`
/// (friction frozen at the frictionless normal force happens to be exact).
/// With `sticking` entries, also `sticking` [{`index`, `normal_force`,
/// `tangential_force`, `ratio`, `holds`}]: the cone check on the Newton
/// answer (`ratio` = |lambda_t| / (mu |lambda_n|), null when infinite).
///
/// `verdict` is `equivalent` (C = 0: the frozen-friction QP is exact),
/// `not_equivalent` (a unique Newton answer that the QP misses; `coupling`
/// = rho(D^-1 C) < 1 means re-solving the QP with updated friction
/// converges to it), `painleve_inconsistent` (no rigid answer) or
/// `painleve_indeterminate` (several); the instant takes the worst of its
/// contacts. An instant without `friction` entries is `equivalent`, with
/// coupling 0 and no contacts (sticking contacts are ideal rows). An
/// instant with constraints of higher order (`equalities.order` above 2)
/// is `stationary_only`, whatever its contacts: the principle of that order
/// is stationary, not a minimum, so there is no QP; the reason names the
/// rows and their orders (coupling 0, `p_matrix` null, nothing solved).
///
/// Exit code 0 for any verdict, 2 for a malformed or unreadable file (one
/// line on stderr, nothing on stdout).
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub(crate) struct CheckArgs {
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    input: InstantFile,
}

/// Runs `zwang check`; returns the exit code.
pub(crate) fn run(args: &CheckArgs, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let Some(instant) = args.input.load(err) else {
        return EXIT_BAD_INPUT;
    };
    let checked = checked(&instant);
    let text = if args.json {
        pretty(&CheckJson::from(&checked))
    } else {
        let title = instant
            .name()
            .map_or_else(|| args.input.file.display().to_string(), str::to_owned);
        checked.text(&title)
    };
    emit(out, &text);
    EXIT_OK
}

#[cfg(test)]
mod tests {
    use crate::test_support::{data, run};
    use crate::{EXIT_BAD_INPUT, EXIT_OK};

    /// In process: the verdict names the rows of higher order and their
    /// orders; a malformed order is one line naming its key, exit code 2.
    #[test]
    fn higher_order_verdict_and_malformed_orders() {
        for (file, named) in [
            ("turning_plane.json", "row 0 (order 3"),
            ("mixed_orders.json", "row 1 (order 3"),
            ("order_four.json", "row 0 (order 4"),
        ] {
            let path = data(file);
            let (code, out, err) = run(&["zwang", "check", &path, "--json"]);
            assert_eq!(code, EXIT_OK, "{file}: {err}");
            let v: serde_json::Value = serde_json::from_str(&out).unwrap();
            assert_eq!(v["verdict"], "stationary_only", "{file}");
            let reason = v["reason"].as_str().unwrap();
            assert!(reason.contains(named), "{file}: {reason}");
            let (code, text, _) = run(&["zwang", "check", &path]);
            assert_eq!(code, EXIT_OK);
            assert!(text.contains("verdict: stationary_only"), "{text}");
        }
        for (file, key) in [
            ("order_length.json", "`equalities.order`"),
            ("order_below_two.json", "`equalities.order[1]`"),
            ("order_not_an_integer.json", "`equalities.order[0]`"),
            ("order_not_an_array.json", "`equalities.order`"),
            ("order_on_inequalities.json", "`inequalities.order`"),
        ] {
            let path = data(&format!("malformed/{file}"));
            let (code, out, err) = run(&["zwang", "check", &path]);
            assert_eq!(code, EXIT_BAD_INPUT, "{file}");
            assert!(out.is_empty());
            assert_eq!(err.lines().count(), 1, "{err}");
            assert!(err.contains(key), "{file}: {err}");
        }
    }
}
