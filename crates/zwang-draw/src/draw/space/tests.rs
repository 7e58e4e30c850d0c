use super::*;
use crate::draw::tests::{decode, gif_frames, scratch};
use crate::draw::{BACKGROUND, GIF_SIZE};
use std::f64::consts::FRAC_1_SQRT_2;
use zwang_model::spatial::{SpatialBody, SpatialKind};
use zwang_motion::simulate_space;
use zwang_motion::StepSettings;

fn rigid(name: &str, position: [f64; 3], orientation: [f64; 4], shape: Shape) -> SpatialBody {
    let mut b = SpatialBody::new(
        name,
        SpatialKind::Rigid {
            mass: 1.0,
            inertia: None,
        },
    );
    b.position = position;
    b.orientation = orientation;
    b.shape = Some(shape);
    b
}

fn halfspace(name: &str, position: [f64; 3], normal: [f64; 3]) -> SpatialBody {
    let mut b = SpatialBody::new(name, SpatialKind::Fixed);
    b.position = position;
    b.shape = Some(Shape::Halfspace { normal });
    b
}

const UNTURNED: [f64; 4] = [1.0, 0.0, 0.0, 0.0];

/// `examples/scenes/space/cube_on_floor.toml`: a unit cube on the floor.
fn cube_on_floor() -> SpatialModel {
    let cube = rigid(
        "cube",
        [0.0, 0.0, 0.5],
        UNTURNED,
        Shape::Box {
            half_extents: [0.5; 3],
        },
    );
    let floor = halfspace("floor", [0.0; 3], [0.0, 0.0, 1.0]);
    SpatialModel::new([0.0, 0.0, -9.81], vec![cube, floor], vec![]).unwrap()
}

/// `examples/scenes/space/boxes_in_bin.toml`: five boxes dropped, turned,
/// into a bin of five half-spaces.
fn boxes_in_bin() -> SpatialModel {
    let mut bodies = vec![
        halfspace("floor", [0.0; 3], [0.0, 0.0, 1.0]),
        halfspace("wall_west", [-1.0, 0.0, 0.0], [1.0, 0.0, 0.0]),
        halfspace("wall_east", [1.0, 0.0, 0.0], [-1.0, 0.0, 0.0]),
        halfspace("wall_south", [0.0, -1.0, 0.0], [0.0, 1.0, 0.0]),
        halfspace("wall_north", [0.0, 1.0, 0.0], [0.0, -1.0, 0.0]),
    ];
    let (c, s) = (0.9659258262890683, 0.2588190451025208);
    let k = 0.2886751345948129;
    for (i, (position, orientation)) in [
        (
            [0.0, 0.0, 0.5],
            [0.9238795325112867, 0.0, 0.0, 0.3826834323650898],
        ),
        ([0.3, 0.2, 1.0], [c, s, 0.0, 0.0]),
        ([-0.4, -0.3, 1.5], [c, 0.0, s, 0.0]),
        ([0.5, -0.5, 2.0], [0.8660254037844387, k, k, k]),
        ([-0.2, 0.5, 2.5], UNTURNED),
    ]
    .into_iter()
    .enumerate()
    {
        let shape = Shape::Box {
            half_extents: [0.2, 0.15, 0.1],
        };
        bodies.push(rigid(
            &format!("box{}", i + 1),
            position,
            orientation,
            shape,
        ));
    }
    bodies[9].velocity = [0.5, -0.5, 0.0];
    SpatialModel::new([0.0, 0.0, -9.81], bodies, vec![]).unwrap()
}

/// The colour of world point `p` in a picture of width `w`, in the panel
/// whose top left corner is `origin`.
fn at(pixels: &[u8], w: u32, camera: &Camera, origin: (u32, u32), p: [f64; 3]) -> [u8; 3] {
    let (x, y) = camera.to_pixel(p);
    let (x, y) = (x + origin.0 as i32, y + origin.1 as i32);
    assert!(x >= 0 && y >= 0 && (x as u32) < w, "{p:?} is out of view");
    let i = 3 * (y as usize * w as usize + x as usize);
    [pixels[i], pixels[i + 1], pixels[i + 2]]
}

/// Whether `c` is `base` lit by some share between the ambient and one.
fn is_shade_of(c: [u8; 3], base: [u8; 3]) -> bool {
    (0..=100).any(|i| {
        let k = AMBIENT + (1.0 - AMBIENT) * i as f64 / 100.0;
        (0..3).all(|j| (c[j] as f64 - k * base[j] as f64).abs() <= 2.0)
    })
}

/// The cube on the floor: a PNG of one panel; the centre of the cube's
/// top face shows the top lit, the front faces lit less, the floor grey
/// beside it, the sky empty.
#[test]
fn the_cube_is_where_the_projection_puts_it() {
    let model = cube_on_floor();
    let frames = vec![Frame::initial(&model)];
    let dir = scratch("space-cube");
    let path = dir.join("cube.png");
    write_png(&model, &frames, "cube_on_floor", &path).unwrap();
    let (pixels, w, h) = decode(&path);
    assert_eq!((w, h), PANEL);
    let camera = camera_of(&model, &frames, PANEL);
    let color = |p| at(&pixels, w, &camera, (0, 0), p);
    let top = color([0.0, 0.0, 1.0]);
    assert_ne!(top, BACKGROUND);
    assert_eq!(top, shade(fill_color(0), [0.0, 0.0, 1.0]), "the top face");
    assert_eq!(
        color([0.5, 0.0, 0.5]),
        shade(fill_color(0), [1.0, 0.0, 0.0]),
        "the face towards +x"
    );
    assert_eq!(
        color([0.0, -0.5, 0.5]),
        shade(fill_color(0), [0.0, -1.0, 0.0]),
        "the face towards -y"
    );
    // Faces turned away are not drawn: the three seen differ.
    assert_ne!(color([0.5, 0.0, 0.5]), color([0.0, -0.5, 0.5]));
    assert_eq!(
        color([0.6, -0.6, 0.0]),
        shade(FIXED_FILL, [0.0, 0.0, 1.0]),
        "the floor in front of the cube"
    );
    // The margin at the panel's left edge is empty.
    let i = 3 * (240 * w as usize + 12);
    assert_eq!(pixels[i..i + 3], BACKGROUND, "the margin");
    std::fs::remove_dir_all(dir).unwrap();
}

/// The bin, at the start and after 2 s: two panels side by side; every
/// box shows at its centre, in its colour, inside the bin; the floor, the
/// west wall and the north wall (seen from inside) are drawn, the south
/// and east walls (between the viewer and the boxes) are not.
#[test]
fn boxes_in_the_bin_show_where_they_are() {
    let model = boxes_in_bin();
    let mut film = Film::new(&model, Format::Png, &[0.0, 2.0]);
    let settings = StepSettings {
        output_every: 0.01,
        ..StepSettings::default()
    };
    let outcome = simulate_space(&model, 2.0, &settings, &mut film);
    assert!(outcome.reason.is_none(), "{:?}", outcome.reason);
    let frames = film.frames();
    assert_eq!(frames.len(), 2);
    let dir = scratch("space-bin");
    let path = dir.join("bin.png");
    film.write("boxes_in_bin", &path).unwrap();
    let (pixels, w, h) = decode(&path);
    assert_eq!((w, h), (2 * PANEL.0, PANEL.1));
    let camera = camera_of(&model, &frames, PANEL);
    let mut poses = Vec::new();
    for (panel, frame) in frames.iter().enumerate() {
        let origin = (panel as u32 * PANEL.0, 0);
        model.poses_into(&frame.q, &mut poses);
        for (m, pose) in poses.iter().enumerate() {
            let p = pose.position;
            assert!(p[0].abs() < 1.0 && p[1].abs() < 1.0 && p[2] > 0.0, "{p:?}");
            // The centre of the face most towards the viewer shows in the
            // box's colour, lit as that face is (or another box's, in
            // front of it).
            let r = matrix(pose.orientation);
            let (k, sign) = (0..3)
                .flat_map(|k| [(k, 1.0), (k, -1.0)])
                .max_by(|a, b| {
                    let towards =
                        |(k, s): (usize, f64)| s * dot([0, 1, 2].map(|j| r[j][k]), camera.toward());
                    towards(*a).total_cmp(&towards(*b))
                })
                .unwrap();
            let normal = [0, 1, 2].map(|j| sign * r[j][k]);
            let half = [0.2, 0.15, 0.1][k];
            let centre = [0, 1, 2].map(|j| p[j] + half * normal[j]);
            let c = at(&pixels, w, &camera, origin, centre);
            let own = shade(fill_color(m), normal);
            let colored = c == own || (0..5).any(|k| is_shade_of(c, fill_color(k)));
            assert!(colored, "panel {panel}, box {m}: {c:?}, not {own:?}");
        }
        let color = |p| at(&pixels, w, &camera, origin, p);
        // The floor's corner far from the viewer, the west and north walls
        // high up; the south-east corner of the bin, outside, is empty.
        assert_eq!(
            color([-0.95, 0.95, 0.0]),
            shade(FIXED_FILL, [0.0, 0.0, 1.0])
        );
        assert_eq!(
            color([-1.0, -0.5, 1.0]),
            shade(FIXED_FILL, [1.0, 0.0, 0.0]),
            "the west wall"
        );
        assert_eq!(
            color([0.5, 1.0, 1.0]),
            shade(FIXED_FILL, [0.0, -1.0, 0.0]),
            "the north wall"
        );
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// A sphere, a capsule, a cylinder and a hull, fixed and moving: each
/// shows in its colour at its centre; the sphere's disc faces the viewer.
#[test]
fn every_shape_is_drawn() {
    let tetra = vec![
        [0.3, 0.3, 0.3],
        [-0.3, -0.3, 0.3],
        [-0.3, 0.3, -0.3],
        [0.3, -0.3, -0.3],
    ];
    let mut bodies = vec![
        rigid(
            "ball",
            [0.0, 0.0, 0.5],
            UNTURNED,
            Shape::Sphere { radius: 0.5 },
        ),
        rigid(
            "pill",
            [2.0, 0.0, 0.5],
            [FRAC_1_SQRT_2, FRAC_1_SQRT_2, 0.0, 0.0],
            Shape::Capsule {
                half_length: 0.5,
                radius: 0.3,
            },
        ),
        rigid(
            "can",
            [0.0, 2.0, 0.5],
            UNTURNED,
            Shape::Cylinder {
                half_length: 0.5,
                radius: 0.4,
            },
        ),
        rigid(
            "gem",
            [-2.0, 0.0, 0.5],
            UNTURNED,
            Shape::Convex { vertices: tetra },
        ),
        halfspace("floor", [0.0; 3], [0.0, 0.0, 1.0]),
    ];
    let mut post = SpatialBody::new("post", SpatialKind::Fixed);
    post.position = [0.0, -2.0, 0.5];
    post.shape = Some(Shape::Box {
        half_extents: [0.2, 0.2, 0.5],
    });
    bodies.push(post);
    let mut point = SpatialBody::new(
        "point",
        SpatialKind::Rigid {
            mass: 1.0,
            inertia: Some([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]),
        },
    );
    point.position = [2.0, 2.0, 1.0];
    bodies.push(point);
    let model = SpatialModel::new([0.0, 0.0, -9.81], bodies, vec![]).unwrap();
    let frames = vec![Frame::initial(&model)];
    let dir = scratch("space-shapes");
    let path = dir.join("shapes.png");
    write_png(&model, &frames, "shapes", &path).unwrap();
    let (pixels, w, _) = decode(&path);
    let camera = camera_of(&model, &frames, PANEL);
    let color = |p| at(&pixels, w, &camera, (0, 0), p);
    let ball = camera.toward();
    assert_eq!(
        color([0.1, 0.0, 0.3]),
        shade(fill_color(0), ball),
        "the ball"
    );
    for (m, p) in [
        (1, [2.0, 0.0, 0.5]),
        (2, [0.0, 2.0, 0.5]),
        (3, [-2.0, 0.0, 0.5]),
    ] {
        assert!(
            is_shade_of(color(p), fill_color(m)),
            "body {m}: {:?}",
            color(p)
        );
    }
    assert_eq!(color([2.0, 2.0, 1.0]), fill_color(4), "the dot");
    assert!(is_shade_of(color([0.0, -2.0, 0.9]), FIXED_FILL), "the post");
    std::fs::remove_dir_all(dir).unwrap();
}

/// A GIF of a run: a frame per sample kept (at most `MAX_FRAMES`), of
/// `GIF_SIZE`; an SVG is refused.
#[test]
fn an_animation_of_the_cube() {
    let model = cube_on_floor();
    let settings = StepSettings {
        output_every: 0.01,
        ..StepSettings::default()
    };
    let mut film = Film::new(&model, Format::Gif, &[]);
    simulate_space(&model, 0.5, &settings, &mut film);
    let frames = film.frames();
    assert_eq!(frames.len(), 51);
    let dir = scratch("space-gif");
    let path = dir.join("cube.gif");
    film.write("cube", &path).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(gif_frames(&bytes), 51);
    assert_eq!(
        (
            u16::from_le_bytes([bytes[6], bytes[7]]),
            u16::from_le_bytes([bytes[8], bytes[9]])
        ),
        (GIF_SIZE.0 as u16, GIF_SIZE.1 as u16)
    );
    write_gif(&model, &frames[..3], "cube", &path).unwrap();
    let svg = Film::new(&model, Format::Svg, &[]);
    assert_eq!(svg.write("cube", &dir.join("cube.svg")), Err(NO_SVG.into()));
    std::fs::remove_dir_all(dir).unwrap();
}

/// States far away, not finite or of another model: drawn or refused,
/// never a panic; a film without samples draws the initial state.
#[test]
fn odd_states_are_drawn_or_refused() {
    let model = boxes_in_bin();
    let dir = scratch("space-odd");
    let path = dir.join("odd.png");
    let mut far = Frame::initial(&model);
    far.q[0] = 1e30;
    far.q[8] = f64::NAN;
    far.q[14] = 1e8;
    far.q[17] = f64::INFINITY;
    far.q[24] = 0.0;
    far.q[25] = 0.0;
    far.q[26] = 0.0;
    far.q[27] = 0.0;
    let frames = vec![Frame::initial(&model), far];
    write_png(&model, &frames, "far", &path).unwrap();
    write_gif(&model, &frames, "far", &dir.join("odd.gif")).unwrap();
    assert!(write_png(&model, &[], "none", &path).is_err());
    let short = Frame {
        t: 0.0,
        q: vec![0.0],
    };
    assert_eq!(
        write_png(&model, &[short], "short", &path).unwrap_err(),
        format!("state 0 has 1 positions, the model {}", model.nq())
    );
    let many = vec![Frame::initial(&model); MAX_STILLS + 1];
    assert!(write_png(&model, &many, "many", &path).is_err());
    assert!(write_png(&model, &frames, "x", &dir.join("no/such/dir.png")).is_err());
    let film = Film::new(&model, Format::Png, &[]);
    film.write("empty", &path).unwrap();
    // A model without bodies draws an empty picture.
    let empty = SpatialModel::new([0.0, 0.0, -9.81], vec![], vec![]).unwrap();
    write_png(&empty, &[Frame { t: 0.0, q: vec![] }], "empty", &path).unwrap();
    std::fs::remove_dir_all(dir).unwrap();
}
