//! Scenes shared by the tests.

/// Every table and every kind, with some keys left to their defaults and
/// integers where floats are expected.
pub const FULL: &str = r#"
# A scene using every part of the format.
[scene]
name = "everything"
dimension = 2
duration = 2

[[body]]
name = "rod"
kind = "rigid"
mass = 1
inertia = 0.3333
position = [0.0, 1.0]
angle = 0.5
velocity = [0.1, -0.2]
angular_velocity = 0.3

[[body]]
name = "ball"
kind = "particle"
mass = 0.5
position = [2, 3]

[[body]]
name = "block"
kind = "rigid"
mass = 2.0
inertia = 0.1
position = [-1.0, 0.5]

[[joint]]
kind = "pin"
bodies = ["ground", "rod"]
anchors = [[0.0, 2.0], [0.0, 1.0]]

[[joint]]
kind = "distance"
bodies = ["rod", "ball"]
anchors = [[1.0, 0.0], [0.0, 0.0]]

[[joint]]
kind = "distance"
bodies = ["rod", "block"]
anchors = [[0.0, -1.0], [0.0, 0.0]]
length = 1.5

[[joint]]
kind = "slider"
bodies = ["ground", "block"]
anchors = [[-1.0, 0.0], [0.0, -0.5]]
axis = [3, 4]

[[joint]]
kind = "slot"
bodies = ["block", "ball"]
anchors = [[0.0, 0.0], [0.0, 0.0]]
axis = [0.0, 2.0]

[[joint]]
kind = "weld"
bodies = ["block", "rod"]
anchors = [[0.5, 0.0], [-0.5, 0.0]]

[[contact]]
name = "floor"
body = "rod"
point = [0.0, -1.0]
surface = { kind = "line", point = [0.0, 0.0], normal = [0.0, 2.0] }
friction = 0.3
viscous = 0.1
restitution = 0.5

[[contact]]
body = "ball"
point = [0.0, 0.0]
surface = { kind = "circle", center = [5.0, 5.0], radius = 1 }

[[contact]]
body = "block"
point = [0.5, -0.5]

[contact.surface]
kind = "line"
point = [0.0, -3.0]
normal = [1.0, 1.0]

[[force]]
kind = "spring"
bodies = ["ground", "rod"]
anchors = [[0.0, 0.0], [0.0, 1.0]]
stiffness = 10.0
rest_length = 0.5

[[force]]
kind = "spring"
bodies = ["block", "ball"]
anchors = [[0.0, 0.5], [0.0, 0.0]]
stiffness = 0

[[force]]
kind = "damper"
bodies = ["rod", "block"]
anchors = [[0.0, 0.0], [0.0, 0.0]]
damping = 0.2

[[force]]
kind = "constant"
body = "ball"
force = [1.0, 2.0]

[[force]]
kind = "constant"
body = "rod"
torque = 0.7

[solver]
method = "dopri5"
tolerance = 1e-6
"#;

/// A moving frame (sinusoids, per-component phases, an in-plane angular
/// velocity), an inertia tensor and a knife edge.
pub const FRAMED: &str = r#"
[scene]
name = "framed"
dimension = 2
duration = 1

[frame]
kind = "sinusoid"
acceleration = { offset = [0, 0.5], amplitude = [-2, -2], frequency = 0.25, phase = [1.5707963267948966, 0] }
angular_velocity = { offset = [0, 1.5, 0], amplitude = 0.3, frequency = [0, 0, 2] }

[[body]]
name = "rod"
kind = "rigid"
mass = 3
inertia = 0.25
inertia_tensor = [0, 0.25, 0]
position = [0, 1]

[[body]]
name = "bob"
kind = "particle"
mass = 1
position = [1, 1]

[[joint]]
kind = "slot"
bodies = ["ground", "rod"]
anchors = [[0, 0], [0.5, 0]]
axis = [1, 0]

[[joint]]
kind = "knife_edge"
body = "rod"
point = [-0.5, 0]
axis = [3, 4]
"#;

/// Shapes of every kind, fixed bodies (a floor and a turned wall, between
/// the moving bodies), surfaces, a joint and a spring to fixed bodies and
/// the time stepper's keys.
pub const SHAPES: &str = r#"
[scene]
name = "pile"
dimension = 2
duration = 1

[[body]]
name = "floor"
kind = "fixed"
shape = { kind = "halfplane", normal = [0, 2] }
friction = 0.8

[[body]]
name = "box"
kind = "rigid"
mass = 3
position = [0, 0.5]
shape = { kind = "box", half_extents = [0.5, 0.25] }
friction = 0.6
restitution = 0.2

[[body]]
name = "disk"
kind = "rigid"
mass = 2
inertia = 0.7
position = [2, 1]
shape = { kind = "circle", radius = 0.3 }

[[body]]
name = "tri"
kind = "rigid"
mass = 1
position = [-2, 1]
shape = { kind = "polygon", vertices = [[-1, -1], [2, -1], [-1, 2]] }

[[body]]
name = "pill"
kind = "rigid"
mass = 1
position = [0, 3]
angle = 0.3
shape = { kind = "capsule", half_length = 0.5, radius = 0.1 }

[[body]]
name = "pebble"
kind = "particle"
mass = 0.1
position = [1, 2]
shape = { kind = "circle", radius = 0.05 }
restitution = 1

[[body]]
name = "wall"
kind = "fixed"
position = [3, 1]
angle = 0.5
shape = { kind = "box", half_extents = [0.1, 2] }
restitution = 0.5

[[joint]]
kind = "pin"
bodies = ["wall", "pill"]
anchors = [[0, 2], [0.5, 0]]

[[force]]
kind = "spring"
bodies = ["disk", "floor"]
anchors = [[0, 0], [1, 0]]
stiffness = 10
rest_length = 1

[solver]
time_step = 0.001
friction = "convex"
"#;
