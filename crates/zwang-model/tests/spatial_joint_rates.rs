//! `SpatialModel::joint_rates` against central differences of the rows:
//! for random states (off the joints: the rates are the rows' derivative
//! anywhere), `J' v = (J(q + h q') v - J(q - h q') v) / 2h` with `q'` the
//! position rate of `v` (`x' = v`, the frame's `q (0, w) / 2`, `w` in the
//! principal frame), for every kind and every kind of partner.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use zwang_model::spatial::rotation::mul;
use zwang_model::spatial::{
    JointRows, SpatialBody, SpatialJoint, SpatialJointKind, SpatialKind, SpatialModel,
};
use zwang_model::Coordinates;

fn vector(rng: &mut ChaCha8Rng, size: f64) -> [f64; 3] {
    [0; 3].map(|_| rng.gen_range(-size..size))
}

fn quaternion(rng: &mut ChaCha8Rng) -> [f64; 4] {
    loop {
        let q = [0; 4].map(|_| rng.gen_range(-1.0..1.0));
        let n = q.iter().map(|x| x * x).sum::<f64>().sqrt();
        if n > 0.1 {
            return q.map(|x| x / n);
        }
    }
}

/// Two moving bodies (one with a full inertia tensor: its principal
/// frame off its body frame) and a fixed one, at random poses; the joint
/// from `partner` (`None`: ground) to body 1.
fn model(rng: &mut ChaCha8Rng, kind: SpatialJointKind, partner: Option<usize>) -> SpatialModel {
    let mut a = SpatialBody::new(
        "a",
        SpatialKind::Rigid {
            mass: 2.0,
            inertia: Some([[0.3, 0.05, 0.0], [0.05, 0.2, 0.02], [0.0, 0.02, 0.4]]),
        },
    );
    let mut b = SpatialBody::new(
        "b",
        SpatialKind::Rigid {
            mass: 1.5,
            inertia: Some([[0.1, 0.0, 0.0], [0.0, 0.25, 0.0], [0.0, 0.0, 0.15]]),
        },
    );
    let mut c = SpatialBody::new("c", SpatialKind::Fixed);
    for body in [&mut a, &mut b, &mut c] {
        body.position = vector(rng, 1.0);
        body.orientation = quaternion(rng);
    }
    SpatialModel::new([0.0, 0.0, -9.81], vec![a, b, c], vec![])
        .and_then(|m| {
            m.with_joints(vec![SpatialJoint {
                kind,
                bodies: [partner, Some(1)],
                anchors: [vector(rng, 0.5), vector(rng, 0.5)],
            }])
        })
        .expect("a valid joint")
}

/// `J(q) v`, row by row.
fn rows_times(model: &SpatialModel, q: &[f64], v: &[f64]) -> Vec<f64> {
    let mut rows = JointRows::default();
    model.joint_rows(q, &mut rows).expect("anchors apart");
    (0..rows.len())
        .map(|i| rows.row(i).iter().map(|&(c, x)| x * v[c]).sum())
        .collect()
}

/// The largest relative gap of `joint_rates` to the central difference
/// over `trials` random states, and the largest rate seen.
fn worst_gap(
    kind: SpatialJointKind,
    partner: Option<usize>,
    seed: u64,
    trials: usize,
) -> (f64, f64) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (mut worst, mut largest) = (0.0f64, 0.0f64);
    for _ in 0..trials {
        let model = model(&mut rng, kind, partner);
        let (nq, nv) = (model.nq(), model.nv());
        let mut q = vec![0.0; nq];
        let v: Vec<f64> = (0..nv).map(|_| rng.gen_range(-2.0..2.0)).collect();
        let mut qdot = vec![0.0; nq];
        for m in 0..model.movers() {
            let x = vector(&mut rng, 1.0);
            let frame = quaternion(&mut rng);
            q[7 * m..7 * m + 3].copy_from_slice(&x);
            q[7 * m + 3..7 * m + 7].copy_from_slice(&frame);
            qdot[7 * m..7 * m + 3].copy_from_slice(&v[6 * m..6 * m + 3]);
            let w = [0.0, v[6 * m + 3], v[6 * m + 4], v[6 * m + 5]];
            let rate = mul(frame, w).map(|x| 0.5 * x);
            qdot[7 * m + 3..7 * m + 7].copy_from_slice(&rate);
        }
        // The model's own position rate is the same convention.
        let mut own = vec![0.0; nq];
        model.position_rate(&q, &v, &mut own);
        assert!(own.iter().zip(&qdot).all(|(a, b)| (a - b).abs() < 1e-15));
        let h = 1e-5;
        let shifted = |s: f64| -> Vec<f64> {
            let moved: Vec<f64> = q.iter().zip(&qdot).map(|(x, d)| x + s * h * d).collect();
            rows_times(&model, &moved, &v)
        };
        let (plus, minus) = (shifted(1.0), shifted(-1.0));
        let mut rates = Vec::new();
        model
            .joint_rates(&q, &v, &mut rates)
            .expect("anchors apart");
        assert_eq!(rates.len(), model.joint_rows_count());
        for i in 0..rates.len() {
            let fd = (plus[i] - minus[i]) / (2.0 * h);
            worst = worst.max((rates[i] - fd).abs() / fd.abs().max(1.0));
            largest = largest.max(fd.abs());
        }
    }
    (worst, largest)
}

#[test]
fn joint_rates_are_the_rows_derivative_along_the_motion() {
    let kinds = [
        SpatialJointKind::Ball,
        SpatialJointKind::Hinge {
            axis: [0.3, -0.5, 0.8],
        },
        SpatialJointKind::Slider {
            axis: [1.0, 0.4, -0.7],
        },
        SpatialJointKind::Weld,
        SpatialJointKind::Distance { length: Some(1.0) },
    ];
    for (k, kind) in kinds.into_iter().enumerate() {
        for (p, partner) in [Some(0), None, Some(2)].into_iter().enumerate() {
            let (worst, largest) = worst_gap(kind, partner, (10 * k + p) as u64, 200);
            println!(
                "{kind:?} from {partner:?}: worst relative gap {worst:e}, rates up to {largest:.3}"
            );
            assert!(worst < 1e-6, "{kind:?} from {partner:?}: {worst:e}");
            // The check has something to check.
            assert!(largest > 1.0, "{kind:?} from {partner:?}: rates {largest}");
        }
    }
}
