//! Rotations as unit quaternions `[w, x, y, z]` and 3 x 3 matrices: the
//! few operations the bodies need, written once.

/// `a b` (first `b`, then `a`).
#[inline]
pub fn mul(a: [f64; 4], b: [f64; 4]) -> [f64; 4] {
    [
        a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
        a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
        a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
        a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0],
    ]
}

/// The inverse of a unit quaternion.
#[inline]
pub fn conjugate(q: [f64; 4]) -> [f64; 4] {
    [q[0], -q[1], -q[2], -q[3]]
}

/// `q` (a quaternion, or a direction) scaled to unit length (`None` for
/// a zero or non-finite one).
#[inline]
pub fn normalized<const N: usize>(q: [f64; N]) -> Option<[f64; N]> {
    let norm = q.iter().map(|x| x * x).sum::<f64>().sqrt();
    (norm.is_finite() && norm > 0.0).then(|| q.map(|x| x / norm))
}

/// The rotation matrix of a unit quaternion (rows).
#[inline]
pub fn matrix(q: [f64; 4]) -> [[f64; 3]; 3] {
    let [w, x, y, z] = q;
    [
        [
            1.0 - 2.0 * (y * y + z * z),
            2.0 * (x * y - w * z),
            2.0 * (x * z + w * y),
        ],
        [
            2.0 * (x * y + w * z),
            1.0 - 2.0 * (x * x + z * z),
            2.0 * (y * z - w * x),
        ],
        [
            2.0 * (x * z - w * y),
            2.0 * (y * z + w * x),
            1.0 - 2.0 * (x * x + y * y),
        ],
    ]
}

/// `R v`.
#[inline]
pub fn apply(r: &[[f64; 3]; 3], v: [f64; 3]) -> [f64; 3] {
    r.map(|row| row[0] * v[0] + row[1] * v[1] + row[2] * v[2])
}

/// `R^T v`.
#[inline]
pub fn apply_transpose(r: &[[f64; 3]; 3], v: [f64; 3]) -> [f64; 3] {
    [0, 1, 2].map(|j| r[0][j] * v[0] + r[1][j] * v[1] + r[2][j] * v[2])
}

/// The unit quaternion of a rotation matrix (Shepperd's method: the
/// largest of the four candidates, so no division by a small number).
pub fn from_matrix(r: &[[f64; 3]; 3]) -> [f64; 4] {
    let trace = r[0][0] + r[1][1] + r[2][2];
    let candidates = [trace, r[0][0], r[1][1], r[2][2]];
    let (k, _) = candidates
        .iter()
        .enumerate()
        .fold((0, f64::NEG_INFINITY), |best, (i, &c)| {
            if c > best.1 {
                (i, c)
            } else {
                best
            }
        });
    let q = match k {
        0 => {
            let s = 2.0 * (1.0 + trace).sqrt();
            [
                0.25 * s,
                (r[2][1] - r[1][2]) / s,
                (r[0][2] - r[2][0]) / s,
                (r[1][0] - r[0][1]) / s,
            ]
        }
        1 => {
            let s = 2.0 * (1.0 + r[0][0] - r[1][1] - r[2][2]).sqrt();
            [
                (r[2][1] - r[1][2]) / s,
                0.25 * s,
                (r[0][1] + r[1][0]) / s,
                (r[0][2] + r[2][0]) / s,
            ]
        }
        2 => {
            let s = 2.0 * (1.0 + r[1][1] - r[0][0] - r[2][2]).sqrt();
            [
                (r[0][2] - r[2][0]) / s,
                (r[0][1] + r[1][0]) / s,
                0.25 * s,
                (r[1][2] + r[2][1]) / s,
            ]
        }
        _ => {
            let s = 2.0 * (1.0 + r[2][2] - r[0][0] - r[1][1]).sqrt();
            [
                (r[1][0] - r[0][1]) / s,
                (r[0][2] + r[2][0]) / s,
                (r[1][2] + r[2][1]) / s,
                0.25 * s,
            ]
        }
    };
    normalized(q).unwrap_or([1.0, 0.0, 0.0, 0.0])
}

/// The rotation by the vector `theta` (axis times angle): `exp(theta / 2)`.
#[inline]
pub fn exp(theta: [f64; 3]) -> [f64; 4] {
    let angle = (theta[0] * theta[0] + theta[1] * theta[1] + theta[2] * theta[2]).sqrt();
    let half = 0.5 * angle;
    // sin(a/2)/a, by its series near zero.
    let k = if angle < 1e-4 {
        0.5 - angle * angle / 48.0
    } else {
        half.sin() / angle
    };
    [half.cos(), k * theta[0], k * theta[1], k * theta[2]]
}

/// `a x b`.
#[inline]
pub fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// `a . b`.
#[inline]
pub fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// Two unit tangents completing the unit normal `n` to a right-handed
/// frame `(n, t1, t2)`: a fixed function of `n`, so that a contact whose
/// normal stays keeps its tangents (and its warm start).
pub fn tangents(n: [f64; 3]) -> ([f64; 3], [f64; 3]) {
    let t = cross(n, least_axis(n));
    let len = dot(t, t).sqrt();
    let t1 = t.map(|x| x / len);
    (t1, cross(n, t1))
}

/// The rates of [`tangents`] when `n` moves at `dn` (the world axis they
/// are taken against stays, away from ties): joint rows along tangents of
/// a turning axis change with it.
pub fn tangents_rate(n: [f64; 3], dn: [f64; 3]) -> ([f64; 3], [f64; 3]) {
    let axis = least_axis(n);
    let t = cross(n, axis);
    let len = dot(t, t).sqrt();
    let t1 = t.map(|x| x / len);
    // d(t / |t|) = (dt - t1 (t1 . dt)) / |t|.
    let dt = cross(dn, axis);
    let along = dot(t1, dt);
    let dt1 = [0, 1, 2].map(|k| (dt[k] - t1[k] * along) / len);
    let (a, b) = (cross(dn, t1), cross(n, dt1));
    (dt1, [0, 1, 2].map(|k| a[k] + b[k]))
}

/// The world axis least along `n` (the tangents are taken against it).
fn least_axis(n: [f64; 3]) -> [f64; 3] {
    if n[0].abs() <= n[1].abs() && n[0].abs() <= n[2].abs() {
        [1.0, 0.0, 0.0]
    } else if n[1].abs() <= n[2].abs() {
        [0.0, 1.0, 0.0]
    } else {
        [0.0, 0.0, 1.0]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matrices_and_quaternions_agree() {
        for q in [
            [1.0, 0.0, 0.0, 0.0],
            [0.5, 0.5, 0.5, 0.5],
            [0.9, -0.1, 0.3, 0.2],
            [0.0, 0.0, 0.0, 1.0],
            [0.1, 0.7, -0.6, 0.2],
        ] {
            let q = normalized(q).unwrap();
            let r = matrix(q);
            let back = from_matrix(&r);
            let same = (0..4).all(|i| (back[i] - q[i]).abs() < 1e-14)
                || (0..4).all(|i| (back[i] + q[i]).abs() < 1e-14);
            assert!(same, "{q:?} came back as {back:?}");
            // Rotating by q is conjugating by it.
            let v = [0.3, -1.2, 0.7];
            let w = mul(mul(q, [0.0, v[0], v[1], v[2]]), conjugate(q));
            let rv = apply(&r, v);
            for i in 0..3 {
                assert!((w[i + 1] - rv[i]).abs() < 1e-14);
            }
            let back = apply_transpose(&r, rv);
            for i in 0..3 {
                assert!((back[i] - v[i]).abs() < 1e-14);
            }
        }
    }

    #[test]
    fn exp_turns_about_its_axis_by_its_length() {
        let theta = [0.0, 0.0, std::f64::consts::FRAC_PI_2];
        let r = matrix(exp(theta));
        let x = apply(&r, [1.0, 0.0, 0.0]);
        assert!((x[0]).abs() < 1e-15 && (x[1] - 1.0).abs() < 1e-15);
        // Tiny angles by the series, continuous with the closed form.
        let small = exp([1e-5, 0.0, 0.0]);
        assert!((small[1] - (0.5e-5f64).sin()).abs() < 1e-20);
    }

    #[test]
    fn tangents_complete_a_right_handed_frame() {
        for n in [
            [0.0, 0.0, 1.0],
            [0.0, 0.0, -1.0],
            [1.0, 0.0, 0.0],
            [0.6, 0.0, 0.8],
            [0.48, -0.6, 0.64],
        ] {
            let (t1, t2) = tangents(n);
            for (a, b) in [(n, t1), (n, t2), (t1, t2)] {
                assert!(dot(a, b).abs() < 1e-15);
            }
            for t in [t1, t2] {
                assert!((dot(t, t) - 1.0).abs() < 1e-15);
            }
            let c = cross(t1, t2);
            for i in 0..3 {
                assert!((c[i] - n[i]).abs() < 1e-15);
            }
        }
    }
}
