//! What a spatial run's text report measures along the motion, beyond its
//! end: the period of a body that swings (the mean time between the
//! upward zero crossings of its larger horizontal velocity) and the rate
//! at which a body's centre turns about the vertical axis through the
//! origin (a top's precession). Read from the samples, so as accurate as
//! their spacing allows (crossings interpolated linearly).

use zwang_core::readable;
use zwang_model::spatial::SpatialModel;

/// The upward zero crossings of one velocity component: the first, the
/// last, how many, and the shortest and longest time between two.
#[derive(Debug, Clone, Copy)]
struct Crossings {
    first: f64,
    last: f64,
    count: usize,
    shortest: f64,
    longest: f64,
}

impl Default for Crossings {
    fn default() -> Self {
        Crossings {
            first: 0.0,
            last: 0.0,
            count: 0,
            shortest: f64::INFINITY,
            longest: 0.0,
        }
    }
}

impl Crossings {
    fn add(&mut self, at: f64) {
        if self.count == 0 {
            self.first = at;
        } else {
            let gap = at - self.last;
            self.shortest = self.shortest.min(gap);
            self.longest = self.longest.max(gap);
        }
        self.last = at;
        self.count += 1;
    }

    /// The mean period, when there are two periods or more and they agree
    /// to 5% (a swing, not a bounce about).
    fn period(&self) -> Option<f64> {
        (self.count >= 3 && self.longest <= 1.05 * self.shortest)
            .then(|| (self.last - self.first) / (self.count - 1) as f64)
    }
}

/// One body's measures as the samples come.
#[derive(Debug, Clone, Default)]
struct Track {
    /// The last sample: time, horizontal velocity, azimuth, radius.
    last: Option<(f64, [f64; 2], f64)>,
    /// Per horizontal component: the upward crossings.
    crossings: [Crossings; 2],
    /// The largest speed of each horizontal component, and since its
    /// last upward crossing.
    amplitude: [f64; 2],
    peak: [f64; 2],
    /// The azimuth turned through, unwrapped, and its absolute sum.
    turned: f64,
    travelled: f64,
    /// The smallest and largest distance from the vertical axis.
    radius: (f64, f64),
    /// The first sample's time.
    start: f64,
}

/// The measures of every moving body of a spatial run.
pub(super) struct Motions<'m> {
    model: &'m SpatialModel,
    bodies: Vec<usize>,
    tracks: Vec<Track>,
}

impl<'m> Motions<'m> {
    pub(super) fn new(model: &'m SpatialModel, bodies: Vec<usize>) -> Self {
        let tracks = vec![Track::default(); bodies.len()];
        Motions {
            model,
            bodies,
            tracks,
        }
    }

    /// Takes one sample.
    pub(super) fn sample(&mut self, t: f64, q: &[f64], v: &[f64]) {
        for (track, &b) in self.tracks.iter_mut().zip(&self.bodies) {
            let s = self.model.body_state(b, q, v);
            let (x, y) = (s.position[0], s.position[1]);
            let h = [s.velocity[0], s.velocity[1]];
            let azimuth = y.atan2(x);
            let r = x.hypot(y);
            match track.last {
                None => {
                    track.start = t;
                    track.radius = (r, r);
                }
                Some((t0, h0, a0)) => {
                    for k in 0..2 {
                        if h0[k] < 0.0 && h[k] >= 0.0 {
                            // Jitter about rest (a swing below 1e-3 of
                            // the largest) is no swing.
                            if track.peak[k] >= 1e-3 * track.amplitude[k] {
                                let at = t0 + (t - t0) * (-h0[k]) / (h[k] - h0[k]);
                                track.crossings[k].add(at);
                            }
                            track.peak[k] = 0.0;
                        }
                    }
                    let mut d = azimuth - a0;
                    d -= std::f64::consts::TAU * (d / std::f64::consts::TAU).round();
                    track.turned += d;
                    track.travelled += d.abs();
                    track.radius = (track.radius.0.min(r), track.radius.1.max(r));
                }
            }
            for k in 0..2 {
                track.amplitude[k] = track.amplitude[k].max(h[k].abs());
                track.peak[k] = track.peak[k].max(h[k].abs());
            }
            track.last = Some((t, h, azimuth));
        }
    }

    /// The report's line for body number `i` of the moving bodies, if it
    /// swings or turns: `swings with period 2.0074 s`, `turns about z at
    /// 1.24642 rad/s`.
    pub(super) fn line(&self, i: usize) -> Option<String> {
        let track = self.tracks.get(i)?;
        let mut said = Vec::new();
        // The larger horizontal swing, if it is regular.
        let k = if track.amplitude[0] >= track.amplitude[1] {
            0
        } else {
            1
        };
        if let Some(period) = track.crossings[k].period() {
            said.push(format!("swings with period {} s", readable(period)));
        }
        // A quarter turn or more, one way, at a nearly steady distance.
        let (t_end, ..) = track.last?;
        let steady = track.radius.0 > 0.5 * track.radius.1 && track.radius.1 > 0.0;
        let one_way = track.turned.abs() > 0.99 * track.travelled;
        if steady && one_way && track.turned.abs() >= std::f64::consts::FRAC_PI_2 {
            let rate = track.turned / (t_end - track.start);
            said.push(format!("turns about z at {} rad/s", readable(rate)));
        }
        (!said.is_empty()).then(|| said.join(", "))
    }
}
