//! MJCF import: each `.xml` twin of `examples/scenes/space/` reads into
//! the spatial scene of its `.toml`, field by field; MuJoCo's defaults.
//! (The malformed MJCF files are checked by `malformed.rs`.)

use std::fs;
use std::path::{Path, PathBuf};
use zwang_scene::{
    looks_like_xml, parse_mjcf, parse_spatial_scene, SpatialJointKind, SpatialKind, SpatialScene,
    Stepping,
};

fn repo(folder: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(folder)
}

fn files(folder: &Path, extension: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(folder)
        .unwrap_or_else(|e| panic!("{}: {e}", folder.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == extension))
        .collect();
    files.sort();
    files
}

fn close(what: &str, a: &[f64], b: &[f64]) {
    assert_eq!(a.len(), b.len(), "{what}");
    for (x, y) in a.iter().zip(b) {
        assert!((x - y).abs() <= 1e-12, "{what}: {a:?} vs {b:?}");
    }
}

/// `xml` is `toml`, field by field: numbers exact but positions and
/// orientations (angles converted: to 1e-12); the sampling is the MJCF
/// default, `duration / 1000`, where the TOML gives its own.
fn same_scene(name: &str, xml: &SpatialScene, toml: &SpatialScene) {
    assert_eq!(xml.name, toml.name, "{name}");
    assert_eq!(xml.gravity, toml.gravity, "{name}");
    assert_eq!(xml.duration, toml.duration, "{name}");
    assert_eq!(xml.output_every, xml.duration / 1000.0, "{name}");
    assert_eq!(xml.forces, toml.forces, "{name}");
    assert_eq!(xml.solver, toml.solver, "{name}");
    assert_eq!(xml.bodies.len(), toml.bodies.len(), "{name}");
    for (a, b) in xml.bodies.iter().zip(&toml.bodies) {
        let what = format!("{name}: {}", b.name);
        assert_eq!(a.name, b.name, "{what}");
        assert_eq!(a.kind, b.kind, "{what}");
        close(&format!("{what} position"), &a.position, &b.position);
        close(
            &format!("{what} orientation"),
            &a.orientation,
            &b.orientation,
        );
        assert_eq!(a.velocity, b.velocity, "{what}");
        assert_eq!(a.angular_velocity, b.angular_velocity, "{what}");
        assert_eq!(a.shape, b.shape, "{what}");
        assert_eq!(a.friction, b.friction, "{what}");
        assert_eq!(a.restitution, b.restitution, "{what}");
    }
    assert_eq!(xml.joints.len(), toml.joints.len(), "{name}");
    for (i, (a, b)) in xml.joints.iter().zip(&toml.joints).enumerate() {
        let what = format!("{name}: joint[{i}]");
        assert_eq!(a.bodies, b.bodies, "{what}");
        for k in 0..2 {
            close(
                &format!("{what} anchors[{k}]"),
                &a.anchors[k],
                &b.anchors[k],
            );
        }
        match (a.kind, b.kind) {
            (SpatialJointKind::Hinge { axis: x }, SpatialJointKind::Hinge { axis: y })
            | (SpatialJointKind::Slider { axis: x }, SpatialJointKind::Slider { axis: y }) => {
                close(&format!("{what} axis"), &x, &y)
            }
            (x, y) => assert_eq!(x, y, "{what}"),
        }
    }
}

#[test]
fn each_twin_reads_into_its_tomls_scene() {
    let twins = files(&repo("examples/scenes/space"), "xml");
    assert!(twins.len() >= 7, "{twins:?}");
    for xml_path in twins {
        let name = xml_path.file_stem().unwrap().to_string_lossy().into_owned();
        let toml =
            parse_spatial_scene(&fs::read_to_string(xml_path.with_extension("toml")).unwrap())
                .unwrap_or_else(|e| panic!("{name}.toml: {e}"));
        let text = fs::read_to_string(&xml_path).unwrap();
        assert!(looks_like_xml(&text), "{name}");
        let xml = parse_mjcf(&text, toml.duration).unwrap_or_else(|e| panic!("{name}.xml: {e}"));
        assert_eq!(xml.solver.stepping, Stepping::TimeStep);
        same_scene(&name, &xml, &toml);
        xml.model().unwrap();
    }
}

/// MuJoCo's defaults: timestep 0.002 s, gravity -9.81 along z, density
/// 1000 kg/m³, sliding friction 1; a moving body's inertia is left to
/// the shape (a uniform body).
#[test]
fn defaults_are_mujocos() {
    let scene = parse_mjcf(
        r#"<mujoco><worldbody><body name="b"><freejoint/><geom type="sphere" size="0.5"/></body></worldbody></mujoco>"#,
        2.0,
    )
    .unwrap();
    assert_eq!(scene.name, None);
    assert_eq!(scene.gravity, [0.0, 0.0, -9.81]);
    assert_eq!(scene.solver.time_step, 0.002);
    assert_eq!(scene.output_every, 0.002);
    let b = &scene.bodies[0];
    let SpatialKind::Rigid { mass, inertia } = &b.kind else {
        panic!("{b:?}")
    };
    let want = 1000.0 * 4.0 / 3.0 * std::f64::consts::PI * 0.125;
    assert!((mass - want).abs() < 1e-12 * want, "{mass}");
    assert_eq!(*inertia, None);
    assert_eq!(b.friction, 1.0);
    assert_eq!(b.restitution, 0.0);
    assert!(!looks_like_xml("[scene]\ndimension = 3\n"));
    assert!(looks_like_xml("\u{feff}  \n<mujoco/>"));
}

/// A bad duration is refused before the file is read.
#[test]
fn the_duration_must_be_positive() {
    for d in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        let err = parse_mjcf("<mujoco/>", d).unwrap_err();
        assert_eq!(err.to_string(), "duration: must be a finite number > 0");
    }
}

/// Every prefix of each twin, and each twin with one character replaced
/// by characters that matter in XML and numbers, is read or refused with
/// one line: no panic on any.
#[test]
fn mutated_twins_never_panic() {
    for path in files(&repo("examples/scenes/space"), "xml") {
        let text = fs::read_to_string(&path).unwrap();
        let chars: Vec<char> = text.chars().collect();
        let check = |t: &str| {
            if let Err(e) = parse_mjcf(t, 1.0) {
                assert!(!e.to_string().contains('\n'), "{e}");
            }
        };
        for n in 0..chars.len() {
            check(&chars[..n].iter().collect::<String>());
            for c in ['<', '>', '"', '/', '-', '0', 'e', ' '] {
                let mut m = chars.clone();
                m[n] = c;
                check(&m.iter().collect::<String>());
            }
        }
    }
}
