//! The MJCF reader against closed forms (masses and inertias of shapes,
//! frames, angles), MuJoCo's rules (defaults, classes, includes,
//! keyframes, refusals) and, when `ZWANG_DM_CONTROL` names dm_control's
//! suite folder, against MuJoCo's own numbers for the suite's models
//! (`tests/models/mujoco_suite.json`, written by
//! `benches/mujoco_models.py`).

use std::path::{Path, PathBuf};

use zwang_mjcf::{parse, read, MjcfModel};

fn models() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/models")
}

fn load(name: &str) -> MjcfModel {
    read(&models().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn err(text: &str) -> String {
    parse(text, None).unwrap_err().to_string()
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * b.abs().max(1.0)
}

use std::f64::consts::PI;

use zwang_geometry::spatial::Shape;
use zwang_model::articulated::{Equality, Transmission};

fn body<'a>(m: &'a MjcfModel, name: &str) -> &'a zwang_tree::Body {
    let b = m.body_names.iter().position(|n| n == name).unwrap();
    &m.model.tree.bodies()[b]
}

fn diagonal(i: &[[f64; 3]; 3]) -> [f64; 3] {
    [i[0][0], i[1][1], i[2][2]]
}

/// A capsule of radius r and cylinder length L: the textbook split into a
/// cylinder and two hemispheres (each `3 r / 8` from its flat face):
/// `I_axial = m_c r^2 / 2 + 2/5 m_s r^2` and `I_perp = m_c (r^2 / 4 + L^2
/// / 12) + m_s (2 r^2 / 5 + L^2 / 4 + 3 L r / 8)`.
fn capsule(rho: f64, r: f64, l: f64) -> (f64, f64, f64) {
    let mc = rho * PI * r * r * l;
    let ms = rho * 4.0 / 3.0 * PI * r.powi(3);
    let perp =
        mc * (r * r / 4.0 + l * l / 12.0) + ms * (0.4 * r * r + l * l / 4.0 + 3.0 * l * r / 8.0);
    (mc + ms, perp, mc * r * r / 2.0 + 0.4 * ms * r * r)
}

#[test]
fn shapes_have_their_closed_form_masses_and_inertias() {
    let m = load("shapes.xml");
    let tol = 1e-13;
    // Capsule r = 0.1, half-length 0.3, density 500.
    let (mass, perp, axial) = capsule(500.0, 0.1, 0.6);
    let b = body(&m, "capsule");
    assert!(close(b.mass, mass, tol), "{} vs {mass}", b.mass);
    let i = diagonal(&b.inertia);
    assert!(
        close(i[0], perp, tol) && close(i[1], perp, tol) && close(i[2], axial, tol),
        "{i:?}"
    );
    // Box of half extents (0.1, 0.2, 0.3), mass 6: m (b^2 + c^2) / 3.
    let b = body(&m, "box");
    assert_eq!(b.mass, 6.0);
    let want = [6.0 * 0.13 / 3.0, 6.0 * 0.10 / 3.0, 6.0 * 0.05 / 3.0];
    let i = diagonal(&b.inertia);
    assert!(
        (0..3).all(|k| close(i[k], want[k], tol)),
        "{i:?} vs {want:?}"
    );
    // A capsule from -0.4 to 0.4 along x: its axis is the body's x, its
    // z axis pointing from the second point to the first (MuJoCo's).
    let b = body(&m, "rod");
    let (mass_at_1, perp, axial) = capsule(1.0, 0.05, 0.8);
    let (perp, axial) = (perp * 2.0 / mass_at_1, axial * 2.0 / mass_at_1);
    let i = diagonal(&b.inertia);
    assert!(
        close(i[0], axial, 1e-12) && close(i[1], perp, 1e-12) && close(i[2], perp, 1e-12),
        "{i:?}"
    );
    assert!(b.inertia[0][1].abs() < 1e-15 && b.inertia[0][2].abs() < 1e-15);
    let g = m.model.geoms.iter().find(|g| g.name == "rod").unwrap();
    let z = zwang_core::rotation::matrix(g.pose.orientation);
    assert!((z[0][2] + 1.0).abs() < 1e-15, "{z:?}");
    assert_eq!(
        g.shape,
        Shape::Capsule {
            half_length: 0.4,
            radius: 0.05
        }
    );
    // Two unit balls at x = -0.5 and 0.5: parallel axes.
    let b = body(&m, "dumbbell");
    let own = 0.4 * 0.01;
    let i = diagonal(&b.inertia);
    assert_eq!(b.com, [0.0; 3]);
    assert!(
        close(i[0], 2.0 * own, tol)
            && close(i[1], 2.0 * (own + 0.25), tol)
            && close(i[2], i[1], tol),
        "{i:?}"
    );
    // Cylinder r = 0.2, half-length 0.5, water.
    let b = body(&m, "cylinder");
    let mass = 1000.0 * PI * 0.04;
    let i = diagonal(&b.inertia);
    assert!(close(b.mass, mass, tol));
    assert!(close(i[0], mass * (3.0 * 0.04 + 1.0) / 12.0, tol) && close(i[2], mass * 0.02, tol));
    // Ellipsoid (0.1, 0.2, 0.3), water: 4/3 pi abc, m (b^2 + c^2) / 5.
    let b = body(&m, "ellipsoid");
    let mass = 1000.0 * 4.0 / 3.0 * PI * 0.006;
    let i = diagonal(&b.inertia);
    assert!(close(b.mass, mass, tol));
    assert!(close(i[0], mass * 0.13 / 5.0, tol) && close(i[2], mass * 0.05 / 5.0, tol));
    let g = m.model.geoms.iter().find(|g| g.body == Some(5)).unwrap();
    let Shape::Convex { vertices } = &g.shape else {
        panic!("{:?}", g.shape)
    };
    for v in vertices {
        let s = (v[0] / 0.1).powi(2) + (v[1] / 0.2).powi(2) + (v[2] / 0.3).powi(2);
        assert!((s - 1.0).abs() < 1e-12, "{v:?} is off the surface");
    }
    // The plane is the world's half-space below z = 0.
    assert_eq!(m.model.geoms[0].body, None);
    assert_eq!(
        m.model.geoms[0].shape,
        Shape::Halfspace {
            normal: [0.0, 0.0, 1.0]
        }
    );
}

/// A pendulum of a capsule from its hinge down 1 m and a visual-only ball
/// at its end (contype = conaffinity = 0 still weighs): `M = I_yy` about
/// the hinge plus the armature, by the parallel-axis theorem.
#[test]
fn a_pendulums_mass_matrix_is_its_moment_about_the_hinge() {
    let m = load("shapes.xml");
    let tree = &m.model.tree;
    let (mc, perp, _) = capsule(1000.0, 0.05, 1.0);
    let ms = 1000.0 * 4.0 / 3.0 * PI * 0.001;
    let want = perp + mc * 0.25 + 0.4 * ms * 0.01 + ms + 0.01;
    let mut ws = tree.workspace();
    tree.positions(&mut ws, tree.qpos0()).unwrap();
    tree.mass_matrix(&mut ws).unwrap();
    let dof = tree.joint_dof(6).unwrap();
    let got = tree.entry(ws.mass(), dof, dof);
    assert!(close(got, want, 1e-13), "{got} vs {want}");
    assert_eq!(m.model.joints[6].name, "swing");
    // The free joints come first: 6 bodies of 7 coordinates and 6 dofs.
    assert_eq!((tree.nq(), tree.nv()), (43, 37));
}

/// Angles are degrees unless `compiler angle="radian"`: body orientations
/// (euler, axisangle), hinge ranges, refs and springrefs; slides and
/// ball ranges as MuJoCo reads them.
#[test]
fn degrees_and_radians() {
    let body = |compiler: &str, euler: &str, range: &str| {
        let text = format!(
            r#"<mujoco>{compiler}<worldbody><body euler="{euler}">
                 <joint name="h" range="{range}" ref="{range_lo}" springref="{range_lo}"/>
                 <joint name="s" type="slide" range="-1 1" ref="0.5"/>
                 <geom size="0.1"/></body></worldbody></mujoco>"#,
            range_lo = range.split(' ').next().unwrap()
        );
        parse(&text, None).unwrap()
    };
    let deg = body("", "90 0 0", "-45 30");
    let rad = body(
        r#"<compiler angle="radian"/>"#,
        "1.5707963267948966 0 0",
        "-0.7853981633974483 0.5235987755982988",
    );
    for m in [&deg, &rad] {
        let q = m.model.tree.bodies()[0].orientation;
        let s = std::f64::consts::FRAC_1_SQRT_2;
        assert!(
            (q[0] - s).abs() < 1e-15 && (q[1] - s).abs() < 1e-15,
            "{q:?}"
        );
        let r = m.model.joints[0].range.unwrap();
        assert!(
            (r[0] + PI / 4.0).abs() < 1e-15 && (r[1] - PI / 6.0).abs() < 1e-15,
            "{r:?}"
        );
        assert!((m.model.tree.qpos0()[0] + PI / 4.0).abs() < 1e-15);
        assert!((m.model.joints[0].springref + PI / 4.0).abs() < 1e-15);
        assert_eq!(m.model.joints[1].range, Some([-1.0, 1.0]));
        assert_eq!(m.model.tree.qpos0()[1], 0.5);
    }
}

/// `ref` is `qpos0`: the body sits where the file puts it at `q = ref`,
/// and turns by `q - ref` from there.
#[test]
fn ref_moves_qpos0_and_leaves_the_body_in_place() {
    let model = |r: &str| {
        parse(
            &format!(
                r#"<mujoco><worldbody><body name="arm" pos="0 0 1" euler="0 20 0">
                   <joint axis="0 1 0" pos="0 0 0.5" ref="{r}"/>
                   <geom type="capsule" fromto="0 0 0.5 0 0 -0.5" size="0.05"/>
                   <body name="hand" pos="0 0 -0.5"><joint type="slide" axis="1 0 0" ref="{r}"/>
                   <geom size="0.1"/></body></body></worldbody></mujoco>"#
            ),
            None,
        )
        .unwrap()
    };
    let plain = model("0");
    let turned = model("40");
    let (t0, t1) = (&plain.model.tree, &turned.model.tree);
    assert_eq!(t0.qpos0(), &[0.0, 0.0]);
    assert!((t1.qpos0()[0] - 40f64.to_radians()).abs() < 1e-15 && t1.qpos0()[1] == 40.0);
    let (mut w0, mut w1) = (t0.workspace(), t1.workspace());
    t0.positions(&mut w0, t0.qpos0()).unwrap();
    t1.positions(&mut w1, t1.qpos0()).unwrap();
    for b in 0..2 {
        assert_eq!(t0.pose(&w0, b).unwrap(), t1.pose(&w1, b).unwrap());
    }
    // 0.3 rad and 0.2 m past the reference is 0.3 rad and 0.2 m from zero.
    t0.positions(&mut w0, &[0.3, 0.2]).unwrap();
    t1.positions(&mut w1, &[t1.qpos0()[0] + 0.3, 40.2]).unwrap();
    for b in 0..2 {
        let (p0, q0) = t0.pose(&w0, b).unwrap();
        let (p1, q1) = t1.pose(&w1, b).unwrap();
        assert!(
            (0..3).all(|k| (p0[k] - p1[k]).abs() < 1e-13),
            "{p0:?} {p1:?}"
        );
        assert!((0..4).all(|k| (q0[k] - q1[k]).abs() < 1e-15));
    }
}

/// Classes nest (a child class starts from its parent's values), an
/// element takes its `class`, else the nearest `childclass`, else
/// `main`; actuator shortcuts in a default set MuJoCo's general
/// parameters (a `motor` of a `position` class is still a motor).
#[test]
fn defaults_nest_and_childclass_applies() {
    let m = load("defaults.xml");
    let j = &m.model.joints;
    let names: Vec<&str> = j.iter().map(|j| j.name.as_str()).collect();
    assert_eq!(names, ["a1", "b1", "b2"]);
    assert_eq!((j[0].stiffness, j[0].damping), (5.0, 2.0));
    assert_eq!((j[1].stiffness, j[1].damping), (50.0, 2.0));
    assert_eq!((j[2].stiffness, j[2].damping), (0.0, 1.0));
    let arm: Vec<f64> = m
        .model
        .tree
        .bodies()
        .iter()
        .flat_map(|b| b.joints.iter().map(|j| j.armature))
        .collect();
    assert_eq!(arm, [0.1; 3]);
    assert_eq!(m.model.geoms[0].friction, 0.7);
    assert_eq!(m.model.geoms[1].friction, 0.2);
    assert!(close(
        m.model.tree.bodies()[0].mass,
        100.0 * 4.0 / 3.0 * PI * 1e-3,
        1e-14
    ));
    let a = &m.model.actuators;
    assert_eq!(
        (a[0].gain, a[0].bias, a[0].ctrlrange),
        (1.0, [0.0; 3], Some([-1.0, 1.0]))
    );
    assert_eq!(a[0].transmission, Transmission::Joint(0));
    assert_eq!((a[1].gain, a[1].bias), (10.0, [0.0, -10.0, -2.0]));
    assert_eq!((a[2].gain, a[2].bias), (1.0, [0.0; 3]));
    assert_eq!(
        (a[3].gain, a[3].bias, a[3].ctrlrange),
        (3.0, [0.0, 0.0, -3.0], Some([-1.0, 1.0]))
    );
    assert_eq!(a[3].forcerange, None);
    let e = err(
        r#"<mujoco><worldbody><body><geom class="nope" size="1"/></body></worldbody></mujoco>"#,
    );
    assert_eq!(
        e,
        r#"mjcf: worldbody/body/geom.class: unknown class "nope""#
    );
}

#[test]
fn includes_are_relative_to_the_including_file() {
    let m = load("include_main.xml");
    assert_eq!(m.model.timestep, 0.005);
    assert_eq!(m.body_names, ["arm", "hand"]);
    assert_eq!(m.model.tree.bodies()[1].parent, Some(0));
    let e = read(&models().join("include_missing.xml"))
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with(r#"mjcf: include.file: cannot read "parts/absent.xml": "#),
        "{e}"
    );
    let e = read(&models().join("cycle_a.xml")).unwrap_err().to_string();
    assert_eq!(
        e,
        r#"mjcf: include>include.file: "../cycle_a.xml" includes itself (a cycle of includes)"#
    );
    let e = err(r#"<mujoco><include file="x.xml"/></mujoco>"#);
    assert_eq!(
        e,
        r#"mjcf: include.file: cannot include "x.xml": the text was given without a directory"#
    );
}

#[test]
fn keyframes_fill_what_they_leave_out_and_check_lengths() {
    let text = |key: &str| {
        format!(
            r#"<mujoco><worldbody><body><joint name="h" ref="10"/><geom size="0.1"/>
               <body><joint type="ball"/><geom size="0.1"/></body></body></worldbody>
               <actuator><motor joint="h"/></actuator>
               <keyframe>{key}</keyframe></mujoco>"#
        )
    };
    let e = err(&text(r#"<key qpos="1 2"/>"#));
    assert_eq!(
        e,
        "mjcf: keyframe/key.qpos: has 2 numbers: the model needs 5"
    );
    let e = err(&text(r#"<key name="k" ctrl="1 2"/>"#));
    assert_eq!(
        e,
        "mjcf: keyframe/key[k].ctrl: has 2 numbers: the model needs 1"
    );
    let e = err(&text(r#"<key/><key qvel="1"/>"#));
    assert_eq!(
        e,
        "mjcf: keyframe/key[1].qvel: has 1 number: the model needs 4"
    );
    let m = parse(&text(r#"<key name="k" time="2" qvel="1 2 3 4"/>"#), None).unwrap();
    let k = &m.model.keyframes[0];
    assert_eq!((k.name.as_str(), k.time), ("k", 2.0));
    assert_eq!(k.qpos, [10f64.to_radians(), 1.0, 0.0, 0.0, 0.0]);
    assert_eq!(
        (k.qvel.as_slice(), k.ctrl.as_slice()),
        (&[1.0, 2.0, 3.0, 4.0][..], &[0.0][..])
    );
}

/// Each refusal and error is one line naming the element and attribute.
#[test]
fn refusals_and_errors_are_one_line_naming_the_element() {
    let world = |inner: &str| format!("<mujoco><worldbody>{inner}</worldbody></mujoco>");
    let string = |inner: &str| {
        format!(
            r#"<mujoco><worldbody><site name="a"/><body name="b"><freejoint/><geom size="0.1"/><site name="s"/></body></worldbody>
               <tendon><spatial name="t"><site site="a"/>{inner}<site site="s"/></spatial></tendon></mujoco>"#
        )
    };
    let cases = [
        (
            string(r#"<geom geom="g"/>"#),
            "mjcf: tendon/spatial[t]/geom: <geom>: wrapping around geoms is not supported (refused)",
        ),
        (
            string(r#"<pulley divisor="2"/>"#),
            "mjcf: tendon/spatial[t]/pulley: <pulley>: pulleys are not supported (refused)",
        ),
        (
            r#"<mujoco><asset><hfield name="t" nrow="2" ncol="2" size="1 1 1 1"/></asset></mujoco>"#.to_string(),
            "mjcf: asset/hfield[t]: <hfield>: height fields are not supported (refused)",
        ),
        (
            r#"<mujoco><asset><mesh file="a.stl"/></asset></mujoco>"#.to_string(),
            "mjcf: asset/mesh: <mesh>: meshes are not supported (refused)",
        ),
        (
            world(r#"<body name="b"><freejoint/><geom type="mesh" mesh="m"/></body>"#),
            "mjcf: worldbody/body[b]/geom.mesh: meshes are not supported (refused)",
        ),
        (
            r#"<mujoco><option density="1.2"/></mujoco>"#.to_string(),
            "mjcf: option.density: fluid forces are not supported (refused)",
        ),
        (
            r#"<mujoco><option viscosity="0.1"/></mujoco>"#.to_string(),
            "mjcf: option.viscosity: fluid forces are not supported (refused)",
        ),
        (
            world(r#"<body name="b"><freejoint/><geom size="1" condim="4"/></body>"#),
            "mjcf: worldbody/body[b]/geom.condim: condim 4 (torsional or rolling friction) is not supported (refused)",
        ),
        (
            r#"<mujoco><worldbody><body><joint name="j"/><geom size="1"/></body></worldbody>
               <actuator><general joint="j" dyntype="filter"/></actuator></mujoco>"#.to_string(),
            r#"mjcf: actuator/general.dyntype: dyntype "filter": actuator dynamics other than none are not supported (refused)"#,
        ),
        (
            r#"<mujoco><worldbody><body><joint name="j"/><geom size="1"/></body></worldbody>
               <actuator><muscle joint="j"/><motor joint="j"/></actuator></mujoco>"#.to_string(),
            "mjcf: actuator/muscle: <muscle>: actuator dynamics or gains other than fixed are not supported (refused)",
        ),
        (
            r#"<mujoco><extension><plugin plugin="p"/></extension></mujoco>"#.to_string(),
            "mjcf: extension: <extension>: plugins are not supported (refused)",
        ),
        (
            world(r#"<composite type="grid" count="2 2 1"/>"#),
            "mjcf: worldbody/composite: <composite>: composites and flex objects are not supported (refused)",
        ),
        (
            world(r#"<body name="m" mocap="true"><geom size="1"/></body>"#),
            "mjcf: worldbody/body[m].mocap: mocap bodies are not supported (refused)",
        ),
        (
            r#"<mujoco><deformable/></mujoco>"#.to_string(),
            "mjcf: deformable: <deformable>: flex objects are not supported (refused)",
        ),
        (
            world(r#"<body name="b"><joint/><geom size="0.1" bounce="1"/></body>"#),
            "mjcf: worldbody/body[b]/geom.bounce: unknown attribute",
        ),
        (
            world(r#"<body name="b"><joint/><geom size="0.1"/><wheel/></body>"#),
            "mjcf: worldbody/body[b]/wheel: unknown element",
        ),
        (
            world(r#"<body name="torso"><joint/><geom size="0.1"/><geom type="box" size="0.1 -0.2 0.1"/></body>"#),
            "mjcf: worldbody/body[torso]/geom[1].size: must be >= 0",
        ),
        (
            world(r#"<body name="b"><joint range="30 -30"/><geom size="0.1"/></body>"#),
            "mjcf: worldbody/body[b]/joint.range: is reversed: 30 > -30",
        ),
        (
            world(r#"<body name="b"><joint/><geom type="box" size="0.1 0.1"/></body>"#),
            "mjcf: worldbody/body[b]/geom.size: a box needs 3 sizes > 0",
        ),
        (
            world(r#"<body name="b"><joint/><geom size="x"/></body>"#),
            r#"mjcf: worldbody/body[b]/geom.size: "x" is not a finite number"#,
        ),
        (
            world(r#"<body name="b"><body name="c"><freejoint/><geom size="1"/></body></body>"#),
            "mjcf: worldbody/body[b]/body[c]/freejoint: a free joint must be the only joint of a body whose parent is the world",
        ),
        (
            world(r#"<body name="b"><joint/><freejoint/><geom size="1"/></body>"#),
            "mjcf: worldbody/body[b]/freejoint: a free joint must be the only joint of a body whose parent is the world",
        ),
        (
            world(r#"<body name="b"><joint/><geom type="plane" size="1 1 1"/></body>"#),
            "mjcf: worldbody/body[b]/geom.type: a plane is only allowed in a body that does not move",
        ),
        (
            r#"<mujoco><compiler autolimits="false"/><worldbody><body name="b"><joint range="0 1"/>
               <geom size="1"/></body></worldbody></mujoco>"#.to_string(),
            "mjcf: worldbody/body[b]/joint.range: is given without limited while compiler autolimits is false",
        ),
        (
            world(r#"<body name="b"><joint/><body name="c"><joint/><geom size="1"/></body></body>"#),
            "mjcf: worldbody/body[b]: a body with joints needs a mass and moments of inertia > 0 (its own, or a body welded to it)",
        ),
        (
            r#"<mujoco><worldbody></mujoco>"#.to_string(),
            "",
        ),
    ];
    for (text, want) in cases {
        let got = err(&text);
        assert!(got.starts_with("mjcf: ") && !got.contains('\n'), "{got}");
        if !want.is_empty() {
            assert_eq!(got, want);
        }
    }
}

/// A body with joints and no mass of its own is read when a body welded
/// to it (no joints between) has mass, as MuJoCo reads it.
#[test]
fn a_massless_moving_body_may_carry_a_welded_one() {
    let m = parse(
        r#"<mujoco><worldbody><body name="b"><joint/><body name="c"><geom size="1"/>
           </body></body></worldbody></mujoco>"#,
        None,
    )
    .unwrap();
    assert_eq!(m.model.tree.bodies()[0].mass, 0.0);
}

/// `option/flag`: constraints off drop limits, dry friction, equalities
/// and contacts; gravity off zeroes it; springs and dampers off zero them.
#[test]
fn flags_switch_physics_off() {
    let text = |flags: &str| {
        format!(
            r#"<mujoco><option gravity="0 0 -3"><flag {flags}/></option><worldbody>
                 <body name="a"><joint name="j" type="slide" range="-1 1" frictionloss="0.1" stiffness="2" damping="3"/>
                 <geom size="0.1"/></body></worldbody>
               <equality><joint joint1="j"/></equality></mujoco>"#
        )
    };
    let m = parse(&text(r#"energy="enable""#), None).unwrap().model;
    assert_eq!(m.joints[0].range, Some([-1.0, 1.0]));
    assert_eq!(
        (m.joints[0].frictionloss, m.equalities.len(), m.contact),
        (0.1, 1, true)
    );
    assert_eq!(m.tree.gravity(), [0.0, 0.0, -3.0]);
    let m = parse(&text(r#"constraint="disable""#), None).unwrap().model;
    assert_eq!(m.joints[0].range, None);
    assert_eq!(
        (m.joints[0].frictionloss, m.equalities.len(), m.contact),
        (0.0, 0, false)
    );
    let m = parse(&text(r#"limit="disable" gravity="disable""#), None)
        .unwrap()
        .model;
    assert_eq!((m.joints[0].range, m.equalities.len()), (None, 1));
    assert_eq!(m.tree.gravity(), [0.0; 3]);
    let m = parse(&text(r#"spring="disable" damper="disable""#), None)
        .unwrap()
        .model;
    assert_eq!((m.joints[0].stiffness, m.joints[0].damping), (0.0, 0.0));
    let e = err(&text(r#"actuation="disable""#));
    assert_eq!(
        e,
        r#"mjcf: option/flag.actuation: "disable" is not supported (refused)"#
    );
}

/// A weld holds the relative pose at `qpos0`: the second body's frame in
/// the first's, here a quarter turn about z and a shift along the turned
/// axes.
#[test]
fn a_weld_holds_the_pose_at_qpos0() {
    let m = parse(
        r#"<mujoco><worldbody>
             <body name="a" pos="1 0 0" euler="0 0 90"><freejoint/><geom size="0.1"/></body>
             <body name="b" pos="1 2 0"><freejoint/><geom size="0.1"/></body></worldbody>
           <equality><weld body1="a" body2="b"/><weld body1="b" relpose="1 2 3 1 0 0 0"/>
             <weld body1="a" body2="b" anchor="1 0 0" relpose="1 2 3 0 0 0 1"/></equality>
           <keyframe><key name="rest"/><key/></keyframe></mujoco>"#,
        None,
    )
    .unwrap();
    let Equality::Weld { bodies, relative } = &m.model.equalities[0] else {
        panic!()
    };
    assert_eq!(*bodies, [Some(0), Some(1)]);
    // b sits 2 along world y from a: along a's x (a turned by 90 degrees).
    let want = [2.0, 0.0, 0.0];
    assert!(
        (0..3).all(|k| (relative.position[k] - want[k]).abs() < 1e-15),
        "{relative:?}"
    );
    let s = std::f64::consts::FRAC_1_SQRT_2;
    let q = relative.orientation;
    assert!(
        (q[0] - s).abs() < 1e-15 && (q[3] + s).abs() < 1e-15,
        "{q:?}"
    );
    let Equality::Weld { bodies, relative } = &m.model.equalities[1] else {
        panic!()
    };
    assert_eq!(
        (*bodies, relative.position),
        ([Some(1), None], [1.0, 2.0, 3.0])
    );
    // MuJoCo holds body2's anchor on body1's point `relpose`: b's origin
    // at (1, 2, 3) - R_z(180) (1, 0, 0) = (2, 2, 3) in a's frame.
    let Equality::Weld { relative, .. } = &m.model.equalities[2] else {
        panic!()
    };
    assert_eq!(relative.position, [2.0, 2.0, 3.0]);
    assert_eq!(relative.orientation, [0.0, 0.0, 0.0, 1.0]);
    assert_eq!(
        (m.keyframe("rest"), m.keyframe("1"), m.keyframe("2")),
        (Some(0), Some(1), None)
    );
    assert_eq!(m.body("b"), Some(1));
}

/// Geoms outside `compiler inertiagrouprange` add no mass.
#[test]
fn inertia_group_range_selects_geoms() {
    let m = parse(
        r#"<mujoco><compiler inertiagrouprange="0 2"/><worldbody><body><joint/>
             <geom type="box" size="0.5 0.5 0.5" group="2"/>
             <geom type="box" size="0.5 0.5 0.5" group="3" pos="1 0 0"/>
           </body></worldbody></mujoco>"#,
        None,
    )
    .unwrap();
    let b = &m.model.tree.bodies()[0];
    assert_eq!((b.mass, b.com), (1000.0, [0.0; 3]));
}

/// Soft-contact and solver parameters are listed once each, sorted; what
/// only draws is read past silently.
#[test]
fn soft_parameters_are_listed_once() {
    let m = parse(
        r#"<mujoco><option impratio="10" cone="elliptic"><flag contact="disable"/></option>
           <default><geom solref="0.02 1" rgba="1 0 0 1"/></default>
           <visual><quality shadowsize="10"/></visual>
           <worldbody><light pos="0 0 1"/><body><joint solreflimit="0.1 1" group="2"/>
             <geom size="1" solimp="0.9 0.95 0.001" margin="0.1" material="m"/>
             <geom size="1" solref="0.1 1"/><camera name="c"/><site name="s" rgba="0 1 0 1"/>
           </body></worldbody>
           <sensor><jointpos joint="j"/></sensor></mujoco>"#,
        None,
    )
    .unwrap();
    assert_eq!(
        m.ignored,
        [
            "geom.margin",
            "geom.solimp",
            "geom.solref",
            "joint.solreflimit",
            "option.cone",
            "option.impratio"
        ]
    );
    assert!(!m.model.contact);
    assert_eq!(m.model.timestep, zwang_mjcf::TIMESTEP);
}

/// `settotalmass` scales every body; `boundmass` and `boundinertia` lift
/// small ones first; an `inertial` overrides the geoms unless
/// `inertiafromgeom` is true.
#[test]
fn compiler_mass_options() {
    let same = |got: &[f64], want: &[f64]| {
        let ok = got.iter().zip(want).all(|(g, w)| close(*g, *w, 1e-14));
        assert!(ok, "{got:?} vs {want:?}")
    };
    let text = |compiler: &str| {
        format!(
            r#"<mujoco><compiler {compiler}/><worldbody>
                 <body><joint/><geom type="box" size="0.1 0.1 0.1"/>
                   <body><joint/><inertial pos="0 0 0.5" mass="0.001" diaginertia="1e-6 2e-6 2e-6"/>
                   <geom type="box" size="0.1 0.1 0.1"/></body></body></worldbody></mujoco>"#
        )
    };
    let masses =
        |m: &MjcfModel| -> Vec<f64> { m.model.tree.bodies().iter().map(|b| b.mass).collect() };
    let m = parse(&text(""), None).unwrap();
    same(&masses(&m), &[8.0, 0.001]);
    assert_eq!(m.model.tree.bodies()[1].com, [0.0, 0.0, 0.5]);
    let m = parse(&text(r#"inertiafromgeom="true""#), None).unwrap();
    same(&masses(&m), &[8.0, 8.0]);
    assert_eq!(m.model.tree.bodies()[1].com, [0.0; 3]);
    let m = parse(&text(r#"boundmass="0.5" boundinertia="1e-3""#), None).unwrap();
    same(&masses(&m), &[8.0, 0.5]);
    assert_eq!(diagonal(&m.model.tree.bodies()[1].inertia), [1e-3; 3]);
    let m = parse(&text(r#"settotalmass="16.002""#), None).unwrap();
    let got = masses(&m);
    assert!(
        close(got[0], 16.0, 1e-14) && close(got[1], 0.002, 1e-14),
        "{got:?}"
    );
    assert!(close(m.model.tree.bodies()[1].inertia[1][1], 4e-6, 1e-14));
}

/// Equalities hold at `qpos0` as MuJoCo measures them: a connect's two
/// anchors meet, a joint coupling's offsets from `qpos0` are folded into
/// its polynomial.
#[test]
fn equalities_hold_at_qpos0() {
    let m = parse(
        r#"<mujoco><compiler angle="radian"/><worldbody>
             <body name="a" pos="0 0 1"><joint name="ja" axis="0 1 0" ref="0.3"/><geom size="0.1"/>
               <body name="b" pos="1 0 0"><joint name="jb" axis="0 1 0" ref="-0.2"/><geom size="0.1"/></body>
             </body></worldbody>
           <equality><connect body1="b" anchor="0.5 0 0"/>
             <joint joint1="jb" joint2="ja" polycoef="0.1 2 0.5 0 0"/>
             <joint joint1="ja" polycoef="0.25"/>
             <weld body1="a" body2="b" active="false"/></equality></mujoco>"#,
        None,
    )
    .unwrap();
    let eq = &m.model.equalities;
    assert_eq!(eq.len(), 3);
    let Equality::Connect {
        bodies,
        anchor,
        anchor2,
    } = &eq[0]
    else {
        panic!("{eq:?}")
    };
    assert_eq!((*bodies, *anchor), ([Some(1), None], [0.5, 0.0, 0.0]));
    assert!(
        (0..3).all(|k| (anchor2[k] - [1.5, 0.0, 1.0][k]).abs() < 1e-15),
        "{anchor2:?}"
    );
    // MuJoCo: qb - (-0.2) = 0.1 + 2 (qa - 0.3) + 0.5 (qa - 0.3)^2.
    let Equality::Joint { joints, polycoef } = &eq[1] else {
        panic!()
    };
    assert_eq!(*joints, [1, 0]);
    for qa in [-1.0, 0.3, 2.0] {
        let want = -0.2 + 0.1 + 2.0 * (qa - 0.3) + 0.5 * (qa - 0.3f64).powi(2);
        let got: f64 = (0..5).map(|k| polycoef[k] * qa.powi(k as i32)).sum();
        assert!((got - want).abs() < 1e-14, "{got} vs {want}");
    }
    assert_eq!(
        eq[2],
        Equality::Joint {
            joints: [0, 0],
            polycoef: [0.55, 0.0, 0.0, 0.0, 0.0]
        }
    );
}

fn reference() -> serde_json::Value {
    let text = std::fs::read_to_string(models().join("mujoco_suite.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn numbers(v: &serde_json::Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

/// Each number within 1e-9 of MuJoCo's, relative to the largest of the
/// set.
fn near(what: &str, got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    let scale = want.iter().fold(0.0f64, |m, x| m.max(x.abs())).max(1e-300);
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= 1e-9 * scale,
            "{what}[{k}]: {g} against MuJoCo's {w}"
        );
    }
}

/// The suite's models against MuJoCo ([`against_mujoco`]); quadruped,
/// swimmer and fish refused in one line each.
#[test]
fn dm_control_suite_against_mujoco() {
    let Some(dir) = std::env::var_os("ZWANG_DM_CONTROL") else {
        eprintln!("ZWANG_DM_CONTROL is not set: the suite is skipped");
        return;
    };
    let dir = PathBuf::from(dir);
    let reference = reference();
    let suite = reference["models"].as_object().unwrap();
    assert_eq!(suite.len(), 14);
    for (name, want) in suite {
        let m = read(&dir.join(format!("{name}.xml"))).unwrap_or_else(|e| panic!("{name}: {e}"));
        against_mujoco(name, &m, want);
    }
    for refused in ["quadruped", "swimmer", "fish"] {
        let e = read(&dir.join(format!("{refused}.xml")))
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("mjcf: ") && !e.contains('\n'),
            "{refused}: {e}"
        );
        assert!(e.contains("(refused)"), "{refused}: {e}");
    }
}

/// The project's own model of the reader's harder corners (Euler
/// sequences, xyaxes, zaxis, axisangle, fullinertia, bounds, refs,
/// classes, fromto boxes, ellipsoids, tendons, actuators, equalities, a
/// keyframe) against MuJoCo's compilation of it.
#[test]
fn tricky_model_against_mujoco() {
    let reference = reference();
    let project = reference["project"].as_object().unwrap();
    assert!(!project.is_empty());
    for (name, want) in project {
        let m = load(&format!("{name}.xml"));
        against_mujoco(name, &m, want);
    }
}

/// A model against MuJoCo's numbers: sizes, `qpos0`, every body's mass,
/// centre of mass and inertia, and the mass matrix at `qpos0` and at each
/// keyframe (with every body's pose there), each number within 1e-9 of
/// MuJoCo's relative to the largest of its kind (a body's inertia tensor,
/// the matrix); then what [`carried_over`] checks.
fn against_mujoco(name: &str, m: &MjcfModel, want: &serde_json::Value) {
    let a = &m.model;
    let tree = &a.tree;
    let count = |k: &str| want[k].as_u64().unwrap() as usize;
    assert_eq!(tree.nq(), count("nq"), "{name}: nq");
    assert_eq!(tree.nv(), count("nv"), "{name}: nv");
    assert_eq!(tree.nbody() + 1, count("nbody"), "{name}: nbody");
    assert_eq!(a.geoms.len(), count("ngeom"), "{name}: ngeom");
    assert_eq!(a.actuators.len(), count("nu"), "{name}: nu");
    near(
        &format!("{name}: qpos0"),
        tree.qpos0(),
        &numbers(&want["qpos0"]),
    );
    let masses = numbers(&want["body_mass"]);
    let inertias = want["body_inertia"].as_array().unwrap();
    let ipos = want["body_ipos"].as_array().unwrap();
    for (b, body) in tree.bodies().iter().enumerate() {
        let label = format!("{name}: body {}", m.body_names[b]);
        near(&format!("{label} mass"), &[body.mass], &[masses[b + 1]]);
        let flat: Vec<f64> = body.inertia.iter().flatten().copied().collect();
        near(
            &format!("{label} inertia"),
            &flat,
            &numbers(&inertias[b + 1]),
        );
        if body.mass > 0.0 {
            near(&format!("{label} com"), &body.com, &numbers(&ipos[b + 1]));
        }
    }
    let mut ws = tree.workspace();
    let nv = tree.nv();
    let mut at = |qpos: &[f64], what: &str, want: &serde_json::Value| {
        tree.positions(&mut ws, qpos).unwrap();
        tree.mass_matrix(&mut ws).unwrap();
        let dense: Vec<f64> = (0..nv * nv)
            .map(|k| tree.entry(ws.mass(), k / nv, k % nv))
            .collect();
        near(
            &format!("{name}: M at {what}"),
            &dense,
            &numbers(&want["mass_matrix"]),
        );
        if let Some(xpos) = want.get("xpos") {
            for b in 0..tree.nbody() {
                let (p, q) = tree.pose(&ws, b).unwrap();
                let wp = numbers(&xpos.as_array().unwrap()[b + 1]);
                near(&format!("{name}: body {b} position at {what}"), &p, &wp);
                let wq = numbers(&want["xquat"].as_array().unwrap()[b + 1]);
                let sign = if (0..4).map(|k| q[k] * wq[k]).sum::<f64>() < 0.0 {
                    -1.0
                } else {
                    1.0
                };
                near(
                    &format!("{name}: body {b} orientation at {what}"),
                    &q.map(|x| sign * x),
                    &wq,
                );
            }
        }
    };
    at(tree.qpos0(), "qpos0", want);
    for (k, key) in a.keyframes.iter().enumerate() {
        at(&key.qpos, &format!("key {k}"), &want["keys"][k]);
    }
    carried_over(name, m, want);
}

/// What MuJoCo compiled from the file and the reader must carry over:
/// frames, joints, geoms, actuators, tendons, equalities, keyframes and
/// options, each number within 1e-12 (relative to 1 at least).
fn carried_over(name: &str, m: &MjcfModel, want: &serde_json::Value) {
    use zwang_model::articulated::TendonPath;
    use zwang_tree::JointKind;
    let a = &m.model;
    let tree = &a.tree;
    let f = |v: &serde_json::Value| v.as_f64().unwrap();
    let row = |v: &serde_json::Value| -> Vec<f64> { v.as_array().unwrap().iter().map(f).collect() };
    let int = |v: &serde_json::Value| v.as_i64().or_else(|| v.as_bool().map(i64::from)).unwrap();
    let at = |key: &str, i: usize| &want[key].as_array().unwrap()[i];
    let same = |what: String, got: &[f64], want: &[f64]| {
        assert_eq!(got.len(), want.len(), "{what}");
        for (g, w) in got.iter().zip(want) {
            assert!(
                close(*g, *w, 1e-12),
                "{name}: {what}: {got:?} against MuJoCo's {want:?}"
            );
        }
    };
    let same_turn = |what: String, got: [f64; 4], want: &[f64]| {
        let sign = if got.iter().zip(want).map(|(g, w)| g * w).sum::<f64>() < 0.0 {
            -1.0
        } else {
            1.0
        };
        same(what, &got.map(|x| sign * x), want);
    };
    for (b, body) in tree.bodies().iter().enumerate() {
        same(
            format!("body {b} pos"),
            &body.position,
            &row(at("body_pos", b + 1)),
        );
        same_turn(
            format!("body {b} quat"),
            body.orientation,
            &row(at("body_quat", b + 1)),
        );
    }
    let off = |limited: bool| -> bool { !limited || want["disable_constraint"].as_bool().unwrap() };
    let mut j = 0;
    for (b, body) in tree.bodies().iter().enumerate() {
        for joint in &body.joints {
            let what = |s: &str| format!("joint {} {s}", joint.name);
            let physics = &a.joints[j];
            assert_eq!(tree.joint_body(j), Some(b));
            assert_eq!(
                tree.joint_qpos(j),
                Some(int(at("jnt_qposadr", j)) as usize),
                "{}",
                what("qposadr")
            );
            let dof = int(at("jnt_dofadr", j)) as usize;
            assert_eq!(tree.joint_dof(j), Some(dof), "{}", what("dofadr"));
            assert_eq!(int(at("jnt_bodyid", j)) as usize, b + 1);
            let (kind, pos, axis) = match joint.kind {
                JointKind::Free => (0, None, None),
                JointKind::Ball { anchor } => (1, Some(anchor), None),
                JointKind::Slide { axis } => (2, None, Some(axis)),
                JointKind::Hinge { axis, anchor } => (3, Some(anchor), Some(axis)),
            };
            assert_eq!(kind, int(at("jnt_type", j)), "{}", what("type"));
            if let Some(p) = pos {
                same(what("pos"), &p, &row(at("jnt_pos", j)));
            }
            if let Some(x) = axis {
                same(what("axis"), &x, &row(at("jnt_axis", j)));
            }
            let limited = int(at("jnt_limited", j)) == 1;
            match physics.range {
                None => assert!(off(limited), "{name}: {}", what("limited")),
                Some(r) => {
                    assert!(!off(limited), "{name}: {}", what("limited"));
                    same(what("range"), &r, &row(at("jnt_range", j)));
                }
            }
            same(
                what("stiffness"),
                &[physics.stiffness],
                &[f(at("jnt_stiffness", j))],
            );
            if kind >= 2 {
                let qadr = tree.joint_qpos(j).unwrap();
                same(
                    what("springref"),
                    &[physics.springref],
                    &[f(at("qpos_spring", qadr))],
                );
            }
            same(
                what("damping"),
                &[physics.damping],
                &[f(at("dof_damping", dof))],
            );
            same(
                what("armature"),
                &[joint.armature],
                &[f(at("dof_armature", dof))],
            );
            same(
                what("frictionloss"),
                &[physics.frictionloss],
                &[f(at("dof_frictionloss", dof))],
            );
            j += 1;
        }
    }
    assert_eq!(j, want["jnt_type"].as_array().unwrap().len());
    for (g, geom) in a.geoms.iter().enumerate() {
        let what = |s: &str| format!("geom {} {s}", geom.name);
        assert_eq!(
            geom.body.map_or(0, |b| b + 1) as i64,
            int(at("geom_bodyid", g)),
            "{}",
            what("body")
        );
        let (kind, size) = match &geom.shape {
            Shape::Halfspace { .. } => (0, None),
            Shape::Sphere { radius } => (2, Some(vec![*radius])),
            Shape::Capsule {
                half_length,
                radius,
            } => (3, Some(vec![*radius, *half_length])),
            Shape::Convex { .. } => (4, None),
            Shape::Cylinder {
                half_length,
                radius,
            } => (5, Some(vec![*radius, *half_length])),
            Shape::Box { half_extents } => (6, Some(half_extents.to_vec())),
        };
        assert_eq!(kind, int(at("geom_type", g)), "{}", what("type"));
        if let Some(size) = size {
            same(what("size"), &size, &row(at("geom_size", g))[..size.len()]);
        }
        same(what("pos"), &geom.pose.position, &row(at("geom_pos", g)));
        same_turn(
            what("quat"),
            geom.pose.orientation,
            &row(at("geom_quat", g)),
        );
        same(
            what("friction"),
            &[geom.friction],
            &[f(at("geom_friction", g))],
        );
        assert_eq!(
            geom.condim as i64,
            int(at("geom_condim", g)),
            "{}",
            what("condim")
        );
        assert_eq!(
            geom.contype as i64,
            int(at("geom_contype", g)),
            "{}",
            what("contype")
        );
        assert_eq!(
            geom.conaffinity as i64,
            int(at("geom_conaffinity", g)),
            "{}",
            what("conaffinity")
        );
    }
    for (u, act) in a.actuators.iter().enumerate() {
        let what = |s: &str| format!("actuator {} {s}", act.name);
        let (kind, id) = match act.transmission {
            Transmission::Joint(j) => (0, j),
            Transmission::Tendon(t) => (3, t),
        };
        assert_eq!(
            kind,
            int(at("actuator_trntype", u)),
            "{}",
            what("transmission")
        );
        assert_eq!(
            id as i64,
            int(at("actuator_trnid", u)),
            "{}",
            what("transmission")
        );
        same(what("gear"), &[act.gear], &[f(at("actuator_gear", u))]);
        same(what("gain"), &[act.gain], &[f(at("actuator_gain", u))]);
        let bias = if int(at("actuator_biastype", u)) == 0 {
            vec![0.0; 3]
        } else {
            row(at("actuator_bias", u))
        };
        same(what("bias"), &act.bias, &bias);
        for (range, limited, key) in [
            (act.ctrlrange, "actuator_ctrllimited", "actuator_ctrlrange"),
            (
                act.forcerange,
                "actuator_forcelimited",
                "actuator_forcerange",
            ),
        ] {
            match range {
                None => assert_eq!(int(at(limited, u)), 0, "{}", what(limited)),
                Some(r) => {
                    assert_eq!(int(at(limited, u)), 1, "{}", what(limited));
                    same(what(key), &r, &row(at(key, u)));
                }
            }
        }
    }
    assert_eq!(a.tendons.len() as i64, int(&want["ntendon"]));
    for (t, tendon) in a.tendons.iter().enumerate() {
        let what = |s: &str| format!("tendon {} {s}", tendon.name);
        let limited = int(at("tendon_limited", t)) == 1;
        match tendon.range {
            None => assert!(off(limited), "{name}: {}", what("limited")),
            Some(r) => same(what("range"), &r, &row(at("tendon_range", t))),
        }
        same(
            what("stiffness"),
            &[tendon.stiffness],
            &[f(at("tendon_stiffness", t))],
        );
        same(
            what("damping"),
            &[tendon.damping],
            &[f(at("tendon_damping", t))],
        );
        let spring = row(at("tendon_lengthspring", t));
        same(
            what("springlength"),
            &[tendon.springlength.unwrap()],
            &spring[..1],
        );
        assert!(matches!(
            tendon.path,
            TendonPath::Fixed(_) | TendonPath::Spatial(_)
        ));
    }
    let kinds: Vec<i64> = a
        .equalities
        .iter()
        .map(|e| match e {
            Equality::Connect { .. } => 0,
            Equality::Weld { .. } => 1,
            Equality::Joint { .. } => 2,
            Equality::Tendon { .. } => 3,
        })
        .collect();
    let want_kinds: Vec<i64> = want["eq_type"]
        .as_array()
        .unwrap()
        .iter()
        .map(int)
        .collect();
    if want["disable_constraint"].as_bool().unwrap() {
        assert!(kinds.is_empty());
    } else {
        assert_eq!(kinds, want_kinds, "{name}: equalities");
        for (e, eq) in a.equalities.iter().enumerate() {
            let data = row(at("eq_data", e));
            let body = |b: Option<usize>| b.map_or(0, |b| b as i64 + 1);
            match eq {
                Equality::Connect {
                    bodies,
                    anchor,
                    anchor2,
                } => {
                    assert_eq!(body(bodies[0]), int(at("eq_obj1id", e)));
                    assert_eq!(body(bodies[1]), int(at("eq_obj2id", e)));
                    same(
                        format!("connect {e} anchors"),
                        &[*anchor, *anchor2].concat(),
                        &data[..6],
                    );
                }
                Equality::Weld { bodies, .. } => {
                    assert_eq!(body(bodies[0]), int(at("eq_obj1id", e)));
                    assert_eq!(body(bodies[1]), int(at("eq_obj2id", e)));
                }
                Equality::Joint { joints, .. } => {
                    assert_eq!(joints[0] as i64, int(at("eq_obj1id", e)));
                }
                Equality::Tendon { tendons, .. } => {
                    assert_eq!(tendons[0] as i64, int(at("eq_obj1id", e)));
                }
            }
        }
    }
    assert_eq!(a.keyframes.len() as i64, int(&want["nkey"]));
    for (k, key) in a.keyframes.iter().enumerate() {
        same(format!("key {k} qpos"), &key.qpos, &row(at("key_qpos", k)));
        same(format!("key {k} qvel"), &key.qvel, &row(at("key_qvel", k)));
        same(format!("key {k} ctrl"), &key.ctrl, &row(at("key_ctrl", k)));
    }
    same("timestep".into(), &[a.timestep], &[f(&want["timestep"])]);
    let gravity = if want["disable_gravity"].as_bool().unwrap() {
        vec![0.0; 3]
    } else {
        row(&want["gravity"])
    };
    same("gravity".into(), &tree.gravity(), &gravity);
    let contact = !(want["disable_contact"].as_bool().unwrap()
        || want["disable_constraint"].as_bool().unwrap());
    assert_eq!(a.contact, contact, "{name}: contact");
}

/// The time stepper over `m` from `qpos0` at rest for `duration`: the
/// final `qpos` and the largest limit violation.
fn run(m: &MjcfModel, duration: f64) -> (Vec<f64>, f64) {
    use zwang_motion::{StepSettings, TreeStart, TreeStepper};
    let settings = StepSettings {
        time_step: m.model.timestep,
        ..StepSettings::default()
    };
    let mut s = TreeStepper::new(&m.model, settings).unwrap_or_else(|e| panic!("{e}"));
    let start = TreeStart::rest(&m.model);
    s.reset(&start.qpos, &start.qvel, &start.ctrl).unwrap();
    s.advance(duration).unwrap();
    assert_eq!(s.totals().unsolved.steps, 0);
    (s.qpos().to_vec(), s.max_limit_violation())
}

/// A ball hung by a spatial tendon's limit comes to rest under the hook
/// at the string's length.
#[test]
fn a_ball_on_a_string_rests_at_its_length_under_the_hook() {
    let m = load("string.xml");
    let (q, violation) = run(&m, 6.0);
    let (x, z) = (0.1 + q[0], 0.75 + q[1]);
    let length = (x * x + (1.0 - z).powi(2)).sqrt();
    assert!((length - 0.3).abs() < 1e-6, "{length}");
    assert!(x.abs() < 1e-3, "{x}");
    assert!(violation <= 1e-6, "{violation}");
}

/// dm_control's ball_in_cup (a spatial tendon) runs, its string never
/// longer than its range beyond the tolerance, when `ZWANG_DM_CONTROL`
/// names the suite's folder.
#[test]
fn dm_control_ball_in_cup_runs() {
    let Some(dir) = std::env::var_os("ZWANG_DM_CONTROL") else {
        eprintln!("ZWANG_DM_CONTROL is not set: ball_in_cup is skipped");
        return;
    };
    let m = read(&PathBuf::from(dir).join("ball_in_cup.xml")).unwrap();
    let (q, violation) = run(&m, 2.0);
    assert!(violation <= 1e-6, "{violation}");
    // The ball hangs under the cup at the string's length.
    let ball = [q[2], 0.2 + q[3]];
    let cup = [q[0], 0.6 + q[1] - 0.108];
    let length = ((ball[0] - cup[0]).powi(2) + (ball[1] - cup[1]).powi(2)).sqrt();
    assert!((length - 0.3).abs() < 1e-6, "{length}");
}
