//! The orthographic projection of a spatial drawing: world points (m, z
//! up) to a panel's pixels (rows down), along a fixed view direction.

use super::super::Bounds;
use zwang_model::spatial::rotation::{cross, dot, normalized};

/// Where the camera looks from, by default: from `+x`, `-y` and above,
/// towards the centre of the scene, z up on the picture.
pub const VIEW: [f64; 3] = [1.0, -1.5, 1.0];

/// Margin between the scene's projection and a panel's edge, pixels.
const MARGIN: f64 = 24.0;

/// A box of space, possibly empty.
pub type Box3 = Bounds<3>;

impl Bounds<3> {
    /// The centre (the origin when empty).
    pub fn center(&self) -> [f64; 3] {
        if self.is_empty() {
            return [0.0; 3];
        }
        [0, 1, 2].map(|k| 0.5 * (self.min[k] + self.max[k]))
    }

    /// The eight corners (none when empty).
    pub fn corners(&self) -> Vec<[f64; 3]> {
        if self.is_empty() {
            return Vec::new();
        }
        (0..8)
            .map(|i| {
                [0, 1, 2].map(|k| {
                    if i & (1 << k) == 0 {
                        self.min[k]
                    } else {
                        self.max[k]
                    }
                })
            })
            .collect()
    }

    /// Grown by `by` on every side (nothing stays nothing).
    pub fn grown(&self, by: f64) -> Box3 {
        if self.is_empty() {
            return *self;
        }
        Bounds {
            min: self.min.map(|x| x - by),
            max: self.max.map(|x| x + by),
        }
    }
}

/// An orthographic camera: the picture's right and up directions and the
/// direction towards the viewer, a centre and a scale.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Camera {
    right: [f64; 3],
    up: [f64; 3],
    toward: [f64; 3],
    center: [f64; 3],
    scale: f64,
    size: (u32, u32),
}

impl Camera {
    /// Looking along `-view` (`view` points from the scene to the viewer;
    /// [`VIEW`] when it is zero, not finite or straight up or down), z up
    /// on the picture, the projection of `scene` centred in a panel of
    /// `size` pixels with a margin, at equal scales. An empty scene is the
    /// cube from -1 to 1; one thinner than a millimetre gets a metre.
    pub fn fit(scene: &Box3, view: [f64; 3], size: (u32, u32)) -> Camera {
        let z = [0.0, 0.0, 1.0];
        let toward = normalized(view)
            .filter(|d| normalized(cross(z, *d)).is_some_and(|_| d[2].abs() < 0.999))
            .or_else(|| normalized(VIEW))
            .expect("VIEW is a direction");
        // `up`: z without its part along the view; `right = up x toward`.
        let up = normalized([0, 1, 2].map(|k| z[k] - toward[2] * toward[k])).expect("not vertical");
        let right = cross(up, toward);
        let scene = if scene.is_empty() {
            Bounds {
                min: [-1.0; 3],
                max: [1.0; 3],
            }
        } else {
            *scene
        };
        let center = scene.center();
        let mut half = [0.0f64; 2];
        for p in scene.corners() {
            let d = [0, 1, 2].map(|k| p[k] - center[k]);
            half[0] = half[0].max(dot(d, right).abs());
            half[1] = half[1].max(dot(d, up).abs());
        }
        if half[0].max(half[1]) < 5e-4 {
            half = [0.5, 0.5];
        }
        let room = [
            (0.5 * size.0 as f64 - MARGIN).max(1.0),
            (0.5 * size.1 as f64 - MARGIN).max(1.0),
        ];
        let scale = (room[0] / half[0].max(1e-300)).min(room[1] / half[1].max(1e-300));
        Camera {
            right,
            up,
            toward,
            center,
            scale,
            size,
        }
    }

    /// Pixels per metre.
    pub fn scale(&self) -> f64 {
        self.scale
    }

    /// The unit direction from the scene towards the viewer.
    pub fn toward(&self) -> [f64; 3] {
        self.toward
    }

    /// The picture's right and up directions, world.
    pub fn axes(&self) -> ([f64; 3], [f64; 3]) {
        (self.right, self.up)
    }

    /// The pixel of `p`, not rounded (x right, y down).
    pub fn pixel_of(&self, p: [f64; 3]) -> [f64; 2] {
        let d = [0, 1, 2].map(|k| p[k] - self.center[k]);
        [
            0.5 * self.size.0 as f64 + dot(d, self.right) * self.scale,
            0.5 * self.size.1 as f64 - dot(d, self.up) * self.scale,
        ]
    }

    /// The pixel of `p`, rounded (far points saturate).
    pub fn to_pixel(&self, p: [f64; 3]) -> (i32, i32) {
        let [x, y] = self.pixel_of(p);
        (x.round() as i32, y.round() as i32)
    }

    /// How near `p` is to the viewer, m (larger: nearer).
    pub fn depth(&self, p: [f64; 3]) -> f64 {
        dot([0, 1, 2].map(|k| p[k] - self.center[k]), self.toward)
    }

    /// The panel's size, pixels.
    pub fn size(&self) -> (u32, u32) {
        self.size
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Looking along -y (a front view): x to the right, z up, the centre
    /// of the scene in the middle of the panel; higher z, smaller row.
    #[test]
    fn a_front_view_maps_known_points_to_known_pixels() {
        let scene = Bounds {
            min: [-1.0, -1.0, 0.0],
            max: [1.0, 1.0, 2.0],
        };
        let camera = Camera::fit(&scene, [0.0, -1.0, 0.0], (200, 100));
        // The panel's 100 rows less the margins hold the 2 m of height.
        let s = (50.0 - MARGIN) / 1.0;
        assert!((camera.scale() - s).abs() < 1e-12);
        assert_eq!(camera.to_pixel([0.0, 0.0, 1.0]), (100, 50));
        assert_eq!(camera.to_pixel([1.0, 0.0, 1.0]), (100 + s as i32, 50));
        assert_eq!(camera.to_pixel([0.0, 0.0, 2.0]), (100, 50 - s as i32));
        // Depth along y does not move a point on the picture; nearer the
        // viewer (smaller y) is deeper in front.
        assert_eq!(camera.to_pixel([0.0, 5.0, 1.0]), (100, 50));
        assert!(camera.depth([0.0, -1.0, 0.0]) > camera.depth([0.0, 1.0, 0.0]));
    }

    /// The default view: z up on the picture (higher z, smaller row, same
    /// column), the centre in the middle, every corner inside the panel.
    #[test]
    fn the_default_view_keeps_z_up_and_the_scene_in_the_panel() {
        let scene = Bounds {
            min: [-1.0, -1.0, 0.0],
            max: [1.0, 1.0, 1.0],
        };
        let camera = Camera::fit(&scene, VIEW, (640, 480));
        assert_eq!(camera.to_pixel([0.0, 0.0, 0.5]), (320, 240));
        let (x0, y0) = camera.to_pixel([0.3, 0.2, 0.0]);
        let (x1, y1) = camera.to_pixel([0.3, 0.2, 1.0]);
        assert_eq!(x0, x1);
        assert!(y1 < y0);
        assert!(((y0 - y1) as f64 - camera.scale() * camera.axes().1[2]).abs() <= 1.0);
        for p in scene.corners() {
            let [x, y] = camera.pixel_of(p);
            assert!(
                (MARGIN - 1e-9..=640.0 - MARGIN + 1e-9).contains(&x),
                "{p:?}"
            );
            assert!(
                (MARGIN - 1e-9..=480.0 - MARGIN + 1e-9).contains(&y),
                "{p:?}"
            );
        }
        // The viewer is on the side of +x, -y and +z.
        let d = camera.toward();
        assert!(d[0] > 0.0 && d[1] < 0.0 && d[2] > 0.0);
        // A view straight down, or none, falls back on the default.
        for bad in [[0.0, 0.0, 1.0], [0.0; 3], [f64::NAN, 0.0, 1.0]] {
            assert_eq!(Camera::fit(&scene, bad, (640, 480)), camera);
        }
    }
}
