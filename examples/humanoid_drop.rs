//! A humanoid dropped onto the floor, and drawn. An MJCF file is read as
//! a kinematic tree in joint coordinates, time-stepped at its own time
//! step from `qpos0` at rest (rigid contacts, exact Coulomb friction, hard
//! joint limits), and its geoms are drawn as the run goes: a PNG of six
//! instants side by side, or a GIF of the fall.
//!
//! Without a file, the project's own small humanoid
//! (`examples/mjcf/humanoid.xml`: a torso on a free joint, waist, hips,
//! knees, shoulders and elbows on limited hinges, capsules), leaning 30
//! degrees, which lands on its feet, folds and lies face down at rest
//! within 3 s. With MuJoCo's `humanoid.xml` (dm_control's suite, not in
//! this repository) it falls as it stands in the file.
//!
//! ```sh
//! cargo run --release --example humanoid_drop                                   # examples/mjcf/humanoid.xml, 3 s: humanoid_drop.png
//! cargo run --release --example humanoid_drop -- SUITE_DIR/humanoid.xml 8 fall.gif   # MuJoCo's humanoid for 8 s, animated
//! ```
//!
//! It prints what the run kept: the energy (never above the start's at
//! any step), the deepest overlap of two geoms, the furthest a joint
//! passed a limit, the steps left unsolved, the fastest joint at the end
//! and the lowest point of the model above the floor. The test below
//! checks those laws on the project's humanoid.

use std::path::{Path, PathBuf};

use zwang::articulated::{load, start_of};
use zwang::geometry::spatial::Shape;
use zwang::model::articulated::Articulated;
use zwang::motion::{Observer, StepSettings, TreeStepper};
use zwang_draw::draw::space::TreeFilm;
use zwang_draw::draw::Format;

/// The project's humanoid, written for this example.
fn own_humanoid() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/mjcf/humanoid.xml")
}

/// What a drop did.
struct Drop {
    /// Time steps taken.
    steps: usize,
    /// The energy at the start and at the end, J.
    energy: [f64; 2],
    /// The largest energy above the start's at any step's end, J.
    energy_gained: f64,
    /// The deepest overlap of two geoms at any step's end, m.
    max_penetration: f64,
    /// The furthest a joint passed a limit at any step's end.
    max_limit_violation: f64,
    /// Steps whose contact problem ended above its tolerance.
    unsolved_steps: usize,
    /// The final state.
    qpos: Vec<f64>,
    qvel: Vec<f64>,
}

/// Drops `model` from `qpos0` at rest for `duration` s, time step by
/// time step at its own step, the energy taken at each step's end; hands
/// each step's end to `film` when given.
fn drop(
    model: &Articulated,
    duration: f64,
    mut film: Option<&mut TreeFilm<'_>>,
) -> Result<Drop, String> {
    let settings = StepSettings {
        time_step: model.timestep,
        ..StepSettings::default()
    };
    settings.validate(duration)?;
    let steps = (duration / model.timestep).round() as usize;
    let text = |e: zwang::motion::StepError| e.to_string();
    let mut stepper = TreeStepper::new(model, settings).map_err(text)?;
    let start = start_of(model, None)?;
    stepper
        .reset(&start.qpos, &start.qvel, &start.ctrl)
        .map_err(text)?;
    let e0 = stepper.energy().map_err(text)?;
    let mut gained = 0.0f64;
    for k in 0..=steps {
        if k > 0 {
            stepper.step().map_err(text)?;
            let e = stepper.energy().map_err(text)?;
            // A state without an energy counts as energy without bound.
            gained = if (e - e0).is_nan() {
                f64::INFINITY
            } else {
                gained.max(e - e0)
            };
        }
        if let Some(film) = film.as_deref_mut() {
            film.sample(stepper.time(), stepper.qpos(), stepper.qvel(), &[]);
        }
    }
    let e1 = stepper.energy().map_err(text)?;
    let totals = stepper.totals();
    Ok(Drop {
        steps,
        energy: [e0, e1],
        energy_gained: gained,
        max_penetration: totals.max_penetration,
        max_limit_violation: stepper.max_limit_violation(),
        unsolved_steps: totals.unsolved.steps,
        qpos: stepper.qpos().to_vec(),
        qvel: stepper.qvel().to_vec(),
    })
}

/// The lowest point of any geom but the floor planes at `qpos`, m (a
/// capsule's, sphere's or box's lowest point from its pose; other shapes
/// by their centre).
fn lowest_point(model: &Articulated, qpos: &[f64]) -> Result<f64, String> {
    let tree = &model.tree;
    let mut ws = tree.workspace();
    tree.positions(&mut ws, qpos).map_err(|e| e.to_string())?;
    let mut lowest = f64::INFINITY;
    for geom in &model.geoms {
        let pose = geom.world_pose(tree, &ws).map_err(|e| e.to_string())?;
        let r = zwang::model::spatial::rotation::matrix(pose.orientation);
        // How far the shape reaches below its centre: the support along -z.
        let reach = match &geom.shape {
            Shape::Halfspace { .. } => continue,
            Shape::Sphere { radius } => *radius,
            Shape::Capsule {
                half_length,
                radius,
            } => half_length * r[2][2].abs() + radius,
            Shape::Box { half_extents: h } => (0..3).map(|k| h[k] * r[2][k].abs()).sum(),
            _ => 0.0,
        };
        lowest = lowest.min(pose.position[2] - reach);
    }
    Ok(lowest)
}

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = args.first().map_or_else(own_humanoid, PathBuf::from);
    let duration: f64 = match args.get(1) {
        Some(d) => d.parse().map_err(|e| format!("seconds: {d}: {e}"))?,
        None => 3.0,
    };
    let picture = PathBuf::from(args.get(2).map_or("humanoid_drop.png", String::as_str));
    let (model, ignored) = load(&path)?;
    if !ignored.is_empty() {
        println!("read and ignored: {}", ignored.join(", "));
    }
    // A PNG of six instants, or an animation.
    let instants: Vec<f64> = (0..6).map(|k| duration * k as f64 / 5.0).collect();
    let mut film = TreeFilm::new(&model, Format::of(&picture)?, &instants);
    let out = drop(&model, duration, Some(&mut film))?;
    let title = path
        .file_stem()
        .map_or("model".into(), |s| s.to_string_lossy().into_owned());
    film.write(&title, &picture)?;
    println!("{}: {} s, {} steps", path.display(), duration, out.steps);
    println!(
        "energy {:.6} -> {:.6} J, at no step's end more than {:.3e} J above the start",
        out.energy[0], out.energy[1], out.energy_gained
    );
    println!(
        "deepest overlap {:.3e} m, limits passed by {:.3e}, {} steps unsolved",
        out.max_penetration, out.max_limit_violation, out.unsolved_steps
    );
    let fastest = out.qvel.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    println!(
        "at the end: fastest joint {fastest:.3e}, lowest point {:.3e} m above the floor",
        lowest_point(&model, &out.qpos)?
    );
    println!("drawn: {}", picture.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The project's humanoid dropped for 3 s: it ends lying on the floor
    /// (its lowest point on it to the overlap allowed, its torso below
    /// 15 cm) at rest (every joint slower than 1e-9), no two geoms
    /// overlapping by more than 1e-4 m, no limit passed by more than 1e-6,
    /// no step unsolved, and its energy at no step above the start's.
    #[test]
    fn the_humanoid_lands_and_rests_on_the_floor() {
        let (model, _) = load(&own_humanoid()).unwrap();
        let r = drop(&model, 3.0, None).unwrap();
        assert!(r.max_penetration < 1e-4, "{}", r.max_penetration);
        assert!(r.max_limit_violation < 1e-6, "{}", r.max_limit_violation);
        assert_eq!(r.unsolved_steps, 0);
        assert!(r.energy_gained <= 0.0, "{}", r.energy_gained);
        // It fell: most of its energy went into the floor and the joints.
        assert!(r.energy[1] < 0.2 * r.energy[0], "{:?}", r.energy);
        let fastest = r.qvel.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        assert!(fastest < 1e-9, "still moving: {fastest}");
        let lowest = lowest_point(&model, &r.qpos).unwrap();
        assert!(lowest.abs() < 1e-4, "its lowest point at {lowest} m");
        assert!(r.qpos[2] < 0.15, "the torso at {} m", r.qpos[2]);
    }
}
