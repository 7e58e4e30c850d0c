//! Each fault of the shapes, fixed bodies and time stepper's keys is
//! refused with one line naming its key.

use zwang_scene::parse_scene;

/// The scene's header, 1 s long.
const HEAD: &str = "[scene]\ndimension = 2\nduration = 1\n";

/// A rigid box (table 0), a fixed floor (table 1), a particle (table 2).
const BODIES: &str = r#"
[[body]]
name = "box"
kind = "rigid"
mass = 1
position = [0, 1]
shape = { kind = "box", half_extents = [0.5, 0.5] }

[[body]]
name = "floor"
kind = "fixed"
shape = { kind = "halfplane", normal = [0, 1] }

[[body]]
name = "ball"
kind = "particle"
mass = 1
position = [1, 1]
"#;

/// The error line of a scene that must be refused.
fn refused(text: &str) -> String {
    match parse_scene(text) {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => {
            let line = e.to_string();
            assert!(!line.contains(['\n', '\r']), "two lines: {line:?}");
            assert_eq!(line, format!("{}: {}", e.key, e.message));
            line
        }
    }
}

/// `BODIES` with `from` replaced by `to` (which must occur), then `tail`.
fn edited(from: &str, to: &str, tail: &str) -> String {
    assert!(BODIES.contains(from), "{from}");
    format!("{HEAD}{}{tail}", BODIES.replacen(from, to, 1))
}

/// The error of a scene whose bodies are `bodies` (TOML).
fn with_bodies(bodies: &str) -> String {
    refused(&format!("{HEAD}{bodies}"))
}

/// A rigid body named `name` of mass 1 at the origin with `extra` keys.
fn rigid(name: &str, extra: &str) -> String {
    format!("[[body]]\nname = \"{name}\"\nkind = \"rigid\"\nmass = 1\nposition = [0, 0]\n{extra}\n")
}

#[test]
fn the_base_scene_is_valid() {
    let scene = parse_scene(&format!("{HEAD}{BODIES}")).unwrap();
    assert_eq!((scene.bodies.len(), scene.fixed.len()), (2, 1));
}

#[test]
fn bad_shapes_name_the_shape_key() {
    let shape = |s: &str| edited("{ kind = \"box\", half_extents = [0.5, 0.5] }", s, "");
    let cases = [
        (
            "{ kind = \"box\", half_extents = [0.5, 0] }",
            "body[0].shape.half_extents: must be > 0",
        ),
        (
            "{ kind = \"circle\", radius = -1 }",
            "body[0].shape.radius: must be > 0",
        ),
        (
            "{ kind = \"capsule\", half_length = -0.1, radius = 1 }",
            "body[0].shape.half_length: must be >= 0",
        ),
        (
            "{ kind = \"capsule\", half_length = 1, radius = 0 }",
            "body[0].shape.radius: must be > 0",
        ),
        (
            "{ kind = \"polygon\", vertices = [[0, 0], [0, 1], [1, 0]] }",
            "body[0].shape.vertices: must be a convex polygon, counter-clockwise, no three \
             vertices in a row",
        ),
        (
            "{ kind = \"polygon\", vertices = [[0, 0], [1, 0]] }",
            "body[0].shape.vertices: needs at least 3 vertices",
        ),
        (
            "{ kind = \"polygon\", vertices = [[0, 0], [1, 0, 2], [0, 1]] }",
            "body[0].shape.vertices[1]: expected 2 numbers, found 3",
        ),
        (
            "{ kind = \"polygon\", vertices = 3 }",
            "body[0].shape.vertices: expected an array of points",
        ),
        (
            "{ kind = \"sphere\", radius = 1 }",
            "body[0].shape.kind: unknown kind \"sphere\" (expected circle, box, polygon, \
             capsule or halfplane)",
        ),
        (
            "{ kind = \"box\", half_extents = [1, 1], radius = 1 }",
            "body[0].shape.radius: not allowed on a box shape",
        ),
        (
            "{ kind = \"circle\", radius = 1, colour = 1 }",
            "body[0].shape.colour: unknown key \
             (known here: kind, radius, half_extents, vertices, half_length, normal)",
        ),
        ("{ radius = 1 }", "body[0].shape.kind: missing required key"),
        (
            "{ kind = \"circle\" }",
            "body[0].shape.radius: missing required key",
        ),
        (
            "{ kind = \"circle\", radius = nan }",
            "body[0].shape.radius: must be finite",
        ),
        ("\"box\"", "body[0].shape: expected a table"),
        (
            "{ kind = \"halfplane\", normal = [0, 1] }",
            "body[0].shape: a half-plane is for fixed bodies only (kind = \"fixed\")",
        ),
    ];
    for (to, expected) in cases {
        assert_eq!(refused(&shape(to)), expected, "{to}");
    }
    // On a fixed body, a particle, and past a fixed body (the index is the
    // table's in the file).
    assert_eq!(
        refused(&edited("normal = [0, 1]", "normal = [0, 0]", "")),
        "body[1].shape.normal: must be a nonzero vector"
    );
    let ball = "position = [1, 1]\n";
    assert_eq!(
        refused(&edited(
            ball,
            "position = [1, 1]\nshape = { kind = \"halfplane\", normal = [1, 0] }\n",
            ""
        )),
        "body[2].shape: a half-plane is for fixed bodies only (kind = \"fixed\")"
    );
    assert_eq!(
        refused(&edited(
            ball,
            "position = [1, 1]\nshape = { kind = \"circle\", radius = 0 }\n",
            ""
        )),
        "body[2].shape.radius: must be > 0"
    );
}

/// Without `inertia`, the inertia comes from the shape, whose centroid
/// must then be the body's origin; without either, `inertia` is missing.
#[test]
fn computed_inertia_needs_a_centred_shape() {
    let off = "shape = { kind = \"polygon\", vertices = [[1, 1], [3, 1], [3, 2], [1, 2]] }";
    let line = with_bodies(&rigid("plate", off));
    assert!(
        line.starts_with("body[0].shape: its centroid [") && line.contains("centre of mass"),
        "{line}"
    );
    assert_eq!(
        with_bodies(&rigid("plate", "")),
        "body[0].inertia: missing required key"
    );
    // A centred polygon far from round numbers is accepted.
    let centred = "shape = { kind = \"polygon\", vertices = [[-1e-3, -1e-3], [1e-3, -1e-3], \
                   [1e-3, 1e-3], [-1e-3, 1e-3]] }";
    parse_scene(&format!("{HEAD}{}", rigid("chip", centred))).unwrap();
    // The computed inertia is in the bounds of a given one.
    let line = with_bodies(&rigid(
        "dust",
        "shape = { kind = \"circle\", radius = 1e-9 }",
    ));
    assert!(
        line.starts_with("body[0].shape: the inertia of a uniform body of this shape and mass"),
        "{line}"
    );
}

#[test]
fn fixed_bodies_have_no_motion_keys() {
    let fixed = |extra: &str| {
        with_bodies(&format!(
            "{}{}{}[[body]]\nname = \"wall\"\nkind = \"fixed\"\n{extra}\n",
            rigid("a", "inertia = 1"),
            rigid("b", "inertia = 1"),
            rigid("c", "inertia = 1"),
        ))
    };
    let cases = [
        ("mass = 1", "body[3].mass: a fixed body has no mass"),
        (
            "inertia = 1",
            "body[3].inertia: a fixed body has no inertia",
        ),
        (
            "velocity = [1, 0]",
            "body[3].velocity: a fixed body has no velocity",
        ),
        (
            "angular_velocity = 1",
            "body[3].angular_velocity: a fixed body has no angular_velocity",
        ),
        (
            "colour = 1",
            "body[3].colour: unknown key (known here: name, kind, mass, inertia, position, \
             angle, velocity, angular_velocity, inertia_tensor, shape, friction, restitution)",
        ),
        ("friction = -1", "body[3].friction: must be >= 0"),
        (
            "restitution = 1.5",
            "body[3].restitution: must be in [0, 1]",
        ),
        ("position = [1, nan]", "body[3].position[1]: must be finite"),
        ("angle = inf", "body[3].angle: must be finite"),
    ];
    for (extra, expected) in cases {
        assert_eq!(fixed(extra), expected);
    }
    // Moving bodies' surfaces too.
    assert_eq!(
        with_bodies(&rigid("a", "inertia = 1\nrestitution = -0.1")),
        "body[0].restitution: must be in [0, 1]"
    );
    assert_eq!(
        with_bodies(&rigid("a", "inertia = 1\nfriction = -0.1")),
        "body[0].friction: must be >= 0"
    );
}

/// Names are unique across moving and fixed bodies, the indices of the
/// errors are the tables' in the file, and a scene needs a moving body.
#[test]
fn names_and_indices_span_all_bodies() {
    let wall = "[[body]]\nname = \"wall\"\nkind = \"fixed\"\n";
    assert_eq!(
        with_bodies(&format!("{wall}{}", rigid("wall", "inertia = 1"))),
        "body[1].name: duplicate name \"wall\" (also body[0])"
    );
    assert_eq!(
        with_bodies(&format!("{}{wall}{wall}", rigid("a", "inertia = 1"))),
        "body[2].name: duplicate name \"wall\" (also body[1])"
    );
    assert_eq!(
        with_bodies(&wall.replace("\"wall\"", "\"ground\"")),
        "body[0].name: \"ground\" is reserved for the fixed world frame"
    );
    assert_eq!(
        with_bodies(&format!("{wall}{}", rigid("a", "inertia = 0"))),
        "body[1].inertia: must be > 0"
    );
    assert_eq!(
        with_bodies(wall),
        "body: at least one moving body (particle or rigid) is required"
    );
}

#[test]
fn fixed_bodies_are_no_moving_bodies() {
    let cases = [
        (
            "[[contact]]\nbody = \"floor\"\npoint = [0, 0]\n\
             surface = { kind = \"line\", point = [0, 0], normal = [0, 1] }\n",
            "contact[0].body: must be a moving body (\"floor\" is fixed)",
        ),
        (
            "[[force]]\nkind = \"constant\"\nbody = \"floor\"\nforce = [1, 0]\n",
            "force[0].body: must be a moving body (\"floor\" is fixed)",
        ),
        (
            "[[joint]]\nkind = \"knife_edge\"\nbody = \"floor\"\npoint = [0, 0]\naxis = [1, 0]\n",
            "joint[0].body: must be a moving body (\"floor\" is fixed)",
        ),
        (
            "[[joint]]\nkind = \"pin\"\nbodies = [\"floor\", \"ground\"]\n\
             anchors = [[0, 0], [0, 0]]\n",
            "joint[0].bodies: joins \"floor\" to \"ground\", both fixed (one must be a moving \
             body)",
        ),
        (
            "[[force]]\nkind = \"spring\"\nbodies = [\"floor\", \"floor\"]\n\
             anchors = [[0, 0], [0, 0]]\nstiffness = 1\n",
            "force[0].bodies: joins \"floor\" to itself",
        ),
        (
            "[[joint]]\nkind = \"pin\"\nbodies = [\"box\", \"floor\"]\n\
             anchors = [[0, 0], [1, nan]]\n",
            "joint[0].anchors[1][1]: must be finite",
        ),
    ];
    for (tail, expected) in cases {
        assert_eq!(
            refused(&format!("{HEAD}{BODIES}{tail}")),
            expected,
            "{tail}"
        );
    }
    // A fixed body's anchor that overflows in the world.
    let far = "[[body]]\nname = \"far\"\nkind = \"fixed\"\nposition = [1e308, 0]\n";
    let line = refused(&format!(
        "{HEAD}{BODIES}{far}[[joint]]\nkind = \"pin\"\nbodies = [\"far\", \"box\"]\n\
         anchors = [[1e308, 0], [0, 0]]\n"
    ));
    assert!(
        line.starts_with("joint[0].anchors[0]: must be finite"),
        "{line}"
    );
}

#[test]
fn solver_keys_follow_the_stepping() {
    // In the scene with shapes (time stepping by default).
    let shapes = [
        (
            "stepping = \"event\"",
            "solver.stepping: shapes collide only under stepping = \"timestep\" (a body has a \
             shape)",
        ),
        (
            "method = \"dopri5\"",
            "solver.method: only with stepping = \"event\" (the default in a scene with shapes \
             is \"timestep\")",
        ),
        (
            "absolute_tolerance = 1e-9",
            "solver.absolute_tolerance: only with stepping = \"event\" (the default in a scene \
             with shapes is \"timestep\")",
        ),
        ("time_step = 0", "solver.time_step: must be > 0"),
        ("time_step = -1", "solver.time_step: must be > 0"),
        ("time_step = inf", "solver.time_step: must be finite"),
        (
            "time_step = \"fast\"",
            "solver.time_step: expected a number",
        ),
        (
            "time_step = 2",
            "solver.time_step: 2 s must be <= scene.duration (1 s)",
        ),
        (
            "time_step = 0.001\nmax_steps = 999",
            "solver.time_step: 0.001 s makes 1000 steps over 1 s, more than max_steps = 999",
        ),
        (
            "time_step = 5e-324",
            "solver.time_step: 5e-324 s makes inf steps over 1 s, more than max_steps = 1000000",
        ),
        (
            "friction = \"coulomb\"",
            "solver.friction: unknown friction \"coulomb\" (expected exact or convex)",
        ),
        ("friction = 1", "solver.friction: expected a string"),
        ("max_steps = 0", "solver.max_steps: must be > 0"),
    ];
    for (solver, expected) in shapes {
        assert_eq!(
            refused(&format!("{HEAD}{BODIES}[solver]\n{solver}\n")),
            expected
        );
    }
    // In a scene without shapes (event-driven by default).
    let plain = [
        (
            "stepping = \"rk4\"",
            "solver.stepping: unknown stepping \"rk4\" (expected event or timestep)",
        ),
        (
            "stepping = \"timestep\"\ntolerance = 1e-6",
            "solver.tolerance: only with stepping = \"event\"",
        ),
        (
            "time_step = 0.01",
            "solver.time_step: only with stepping = \"timestep\" (the default in a scene \
             without shapes is \"event\")",
        ),
        (
            "stepping = \"event\"\nfriction = \"convex\"",
            "solver.friction: only with stepping = \"timestep\"",
        ),
    ];
    for (solver, expected) in plain {
        let text = format!("{HEAD}{}[solver]\n{solver}\n", rigid("a", "inertia = 1"));
        assert_eq!(refused(&text), expected);
    }
    // The default time step counts too, with or without a [solver] table.
    let long = format!("[scene]\ndimension = 2\nduration = 3000\n{BODIES}");
    assert_eq!(
        refused(&long),
        "solver.time_step: 0.002 s makes 1500000 steps over 3000 s, more than max_steps = \
         1000000"
    );
    let short = format!("[scene]\ndimension = 2\nduration = 0.001\n{BODIES}");
    assert_eq!(
        refused(&short),
        "solver.time_step: the default 0.002 s must be <= scene.duration (0.001 s)"
    );
}

/// The model checks the surfaces and numbers the fixed bodies after the
/// moving ones; the error names the `[[body]]` table of the file.
#[test]
fn surface_errors_name_the_file_table() {
    let floor = "shape = { kind = \"halfplane\", normal = [0, 1] }";
    assert_eq!(
        refused(&edited(floor, &format!("{floor}\nfriction = -1"), "")),
        "body[1].friction: must be >= 0"
    );
    let ball = "position = [1, 1]";
    assert_eq!(
        refused(&edited(ball, &format!("{ball}\nrestitution = 2"), "")),
        "body[2].restitution: must be in [0, 1]"
    );
}
