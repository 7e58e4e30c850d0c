//! Event-driven impacts with Coulomb friction against closed forms: a disk
//! landing (sticking and sliding, with and without restitution), and a rod
//! landing aslant, where Newton's law with friction would gain energy
//! (Kane's paradox) and the restitution is lowered to keep it.

use zwang_model::planar::{Body, Contact, PlanarModel, Surface};
use zwang_model::Bodies;
use zwang_motion::{simulate, Event, EventKind, NoObserver, Settings, Status};

/// A model of one rigid body whose point `point` (body frame) touches the
/// floor `y = 0` at `t = 0`, with friction `mu` and restitution `e`.
fn landing(body: Body, point: [f64; 2], mu: f64, e: f64) -> PlanarModel {
    let floor = Contact::new("floor", 0, point, Surface::FLOOR).with_surface(mu, e);
    PlanarModel::new([0.0, -9.81], vec![body], vec![], vec![floor], vec![]).unwrap()
}

/// The first event of a short run of `model` (it touches and approaches
/// at the start: an impact at `t = 0`) and the energy before it.
fn first_impact(model: &PlanarModel) -> (Event, f64) {
    let o = simulate(model, 1e-3, &Settings::default(), &mut NoObserver);
    assert_ne!(o.status, Status::Failed, "{:?}", o.reason);
    let e = o.events.first().expect("an impact at the start").clone();
    assert_eq!((e.kind, e.time), (EventKind::Impact, 0.0));
    (e, o.energy_initial)
}

/// A uniform disk (mass m, radius R, J = m R^2 / 2) lands with normal
/// speed `v_n`, tangential speed `v_x` and spin `w`: its contact point
/// slips at `s = v_x + w R`. It sticks iff `m |s| / 3 <= mu (1 + e) m v_n`
/// (the impulse that stops the slip, `-m s / 3`, is in the cone), then
/// `v_x' = v_x - s / 3`, `w' = w - 2 s / (3 R)`; else it slides,
/// `P_t = -mu (1 + e) m v_n sign(s)`, `v_x' = v_x + P_t / m`,
/// `w' = w + P_t R / J`. The normal speed after is `e v_n` either way.
#[test]
fn a_disk_lands_sticking_or_sliding_as_the_closed_form_says() {
    let (m, r, mu) = (2.0, 0.3, 0.4);
    let j = m * r * r / 2.0;
    let mut kinds = Vec::new();
    let mut worst = 0.0f64;
    for e in [0.0, 0.5] {
        for (v_n, v_x, w) in [
            (2.0, 1.0, -2.0),
            (1.5, -0.7, 0.9),
            (1.0, 3.0, 5.0),
            (1.0, -2.0, -4.0),
            (0.8, 0.5, 10.0),
        ] {
            let disk = Body::rigid("disk", m, j)
                .at([0.0, r])
                .moving([v_x, -v_n])
                .spinning(w);
            let model = landing(disk, [0.0, -r], mu, e);
            let (event, before) = first_impact(&model);
            let s: f64 = v_x + w * r;
            let sticks = m * s.abs() / 3.0 <= mu * (1.0 + e) * m * v_n;
            let (vx, ww) = if sticks {
                (v_x - s / 3.0, w - 2.0 * s / (3.0 * r))
            } else {
                let p_t = -mu * (1.0 + e) * m * v_n * s.signum();
                (v_x + p_t / m, w + p_t * r / j)
            };
            let want = [vx, e * v_n, ww];
            let scale = v_n.max(v_x.abs()).max(w.abs() * r);
            for (i, (got, want)) in event.v.iter().zip(want).enumerate() {
                let err = (got - want).abs() / scale;
                worst = worst.max(err);
                assert!(
                    err < 1e-12,
                    "e {e}, (v_n, v_x, w) = ({v_n}, {v_x}, {w}), sticks {sticks}: \
                     v[{i}] = {got} vs {want} ({err:e})"
                );
            }
            let after = model.energy(0.0, &event.q, &event.v);
            assert!(after <= before, "{after} > {before}");
            let jump = event.jump.expect("an impact's jump");
            assert_eq!(jump.restitution_factor, 1.0);
            assert!((jump.energy_change - (after - before)).abs() < 1e-12);
            kinds.push(sticks);
        }
    }
    println!("disk landings: worst relative error {worst:e}");
    // Both landings, at both restitutions.
    assert_eq!(
        kinds,
        [true, true, false, false, false, true, true, false, false, false]
    );
}

/// A rod (m = 1, L = 1, I = m L^2 / 12) at 0.5 rad lands on its lower end
/// with `e = 1`, `mu = 1`, approaching at 1 m/s and slipping at 0.3 m/s.
/// The contact's rows `n = (0, 1, r_x)`, `t = (1, 0, -r_y)` couple through
/// the rotation (`W_nt = -r_x r_y / I`): the impulse that stops the slip
/// and returns the normal speed, `P = W^-1 (u+ - u-)` with
/// `u+ = (-e u_n-, 0)`, is in the cone, and it would raise the kinetic
/// energy by `(u+ W^-1 u+ - u- W^-1 u-) / 2 > 0`. The restitution is
/// lowered to the factor where that vanishes, `theta = sqrt(u- W^-1 u- /
/// (u_n-^2 (W^-1)_nn))`, the contact still sticking.
#[test]
fn a_rod_landing_aslant_gains_no_energy_its_restitution_lowered() {
    let (m, l, a, mu) = (1.0f64, 1.0f64, 0.5f64, 1.0);
    let i = m * l * l / 12.0;
    let (rx, ry) = (-l / 2.0 * a.cos(), -l / 2.0 * a.sin());
    let v0 = [0.3, -1.0, 0.0];
    let rod = Body::rigid("rod", m, i)
        .at([-rx, -ry])
        .turned(a)
        .moving([v0[0], v0[1]]);
    let model = landing(rod, [-l / 2.0, 0.0], mu, 1.0);
    // The closed form, by hand: W, its inverse, the approach.
    let w = [
        [1.0 / m + rx * rx / i, -rx * ry / i],
        [-rx * ry / i, 1.0 / m + ry * ry / i],
    ];
    let det = w[0][0] * w[1][1] - w[0][1] * w[1][0];
    let wi = [
        [w[1][1] / det, -w[0][1] / det],
        [-w[1][0] / det, w[0][0] / det],
    ];
    let quad = |x: [f64; 2]| {
        x[0] * (wi[0][0] * x[0] + wi[0][1] * x[1]) + x[1] * (wi[1][0] * x[0] + wi[1][1] * x[1])
    };
    let un = v0[1] + v0[2] * rx;
    let ut = v0[0] - v0[2] * ry;
    let gain = 0.5 * (quad([-un, 0.0]) - quad([un, ut]));
    assert!(
        gain > 0.05,
        "Newton's law with friction gains {gain} J here"
    );
    let theta = (quad([un, ut]) / (un * un * wi[0][0])).sqrt();
    let du = [-theta * un - un, -ut];
    let p = [
        wi[0][0] * du[0] + wi[0][1] * du[1],
        wi[1][0] * du[0] + wi[1][1] * du[1],
    ];
    assert!(p[1].abs() <= mu * p[0], "the contact sticks: {p:?}");
    let want = [
        v0[0] + p[1] / m,
        v0[1] + p[0] / m,
        v0[2] + (rx * p[0] - ry * p[1]) / i,
    ];
    let (event, before) = first_impact(&model);
    let jump = event.jump.expect("an impact's jump");
    println!(
        "rod aslant: theta {theta}, jump {jump:?}, v {:?} vs {want:?}",
        event.v
    );
    assert!((jump.restitution_factor - theta).abs() < 1e-12, "{jump:?}");
    for (got, want) in event.v.iter().zip(want) {
        assert!((got - want).abs() < 1e-12, "{:?} vs {want}", event.v);
    }
    let after = model.energy(0.0, &event.q, &event.v);
    assert!(after <= before + 1e-15 * before, "{after} > {before}");
    assert!(jump.energy_change <= 0.0 && jump.energy_change > -1e-12);
}
