//! Regressions: a reused backend meets instants of other patterns, sizes
//! and values, and never panics nor returns vectors of the wrong length.

use zwang_instant::generate::{chain, scene, SceneSpec};
use zwang_instant::{matrix_from_triplets, Instant, RowSet, Rows};
use zwang_qp::{
    ActiveSetBackend, AutoBackend, Backend, ClarabelBackend, DirectBackend, Solution, Status,
};

use crate::rel;

fn assert_matches_clarabel(s: &Solution, instant: &Instant, what: &str) {
    let r = ClarabelBackend::new().solve(instant);
    assert_eq!(r.status, Status::Solved, "{what}: clarabel");
    assert_eq!(s.status, Status::Solved, "{what}: {}", s.backend);
    assert!(rel(&s.acceleration, &r.acceleration) < 1e-8, "{what}");
    assert!(rel(&s.multipliers_eq, &r.multipliers_eq) < 1e-7, "{what}");
    assert!(rel(&s.multipliers_in, &r.multipliers_in) < 1e-7, "{what}");
}

/// A chain of 20 bodies with a coupled (banded, not block-diagonal) mass:
/// 60 coordinates in one coupled block, too large for the dense blocks, so
/// the KKT path.
fn coupled_base() -> Instant {
    scene(&SceneSpec {
        bodies: 20,
        joints: 0,
        ground_pin: false,
        contacts: 0,
        coupled_mass: true,
        seed: 11,
        ..SceneSpec::default()
    })
    .instant
}

/// Four rows over the coordinates `cols` (two entries per row).
fn rows(n: usize, cols: [(usize, usize); 4]) -> Rows {
    let t = cols
        .iter()
        .enumerate()
        .flat_map(|(r, &(i, j))| [(r, i, 1.0), (r, j, -0.5)]);
    let a = matrix_from_triplets("equalities.A", (4, n), t).unwrap();
    let built = Instant::builder(
        matrix_from_triplets("mass", (n, n), (0..n).map(|i| (i, i, 1.0))).unwrap(),
        vec![0.0; n],
    )
    .equalities(a, vec![0.5, -1.0, 2.0, 0.25])
    .build()
    .unwrap();
    built.equalities().clone()
}

/// Root cause: the KKT path reused its symbolic analysis whenever the
/// *selection* of rows (here all four) was equal to the last one, without
/// looking at the rows' pattern; faer then factored a matrix of another
/// pattern with the old analysis and panicked. The README tells users to
/// keep the backend, so this was one `solve` away. Every symbolic analysis
/// is now keyed on the instant's structure stamp.
#[test]
fn reused_auto_backend_with_new_coupled_pattern_does_not_panic() {
    let base = coupled_base();
    let n = base.dim();
    let first = base.with_rows(
        rows(n, [(0, 5), (7, 12), (20, 21), (40, 59)]),
        Rows::empty(n),
    );
    let second = base.with_rows(
        rows(n, [(1, 30), (2, 3), (44, 10), (58, 6)]),
        Rows::empty(n),
    );
    assert_ne!(first.structure_id(), second.structure_id());
    let mut auto = AutoBackend::new();
    for (k, inst) in [&first, &second, &first].into_iter().enumerate() {
        let s = auto.solve(inst);
        assert_eq!(s.backend, "direct");
        assert_matches_clarabel(&s, inst, &format!("instant {k}"));
    }
}

/// The same root cause on the active-set path: with contacts the KKT
/// selection is the equalities plus the active contacts, equal between two
/// instants whose contact rows touch other coordinates.
#[test]
fn kkt_symbolic_reuse_needs_the_same_structure_not_only_the_same_selection() {
    let base = coupled_base();
    let n = base.dim();
    // Contacts pushing up against a downward force: all active.
    let contacts = |cols: [usize; 3]| {
        let t = cols.iter().enumerate().map(|(r, &c)| (r, c, 1.0));
        let a = matrix_from_triplets("inequalities.A", (3, n), t).unwrap();
        let mut force = base.force().to_vec();
        for &c in &cols {
            force[c] -= 50.0;
        }
        let mut inst = base
            .with_rows(Rows::empty(n), rows_in(a, vec![0.0; 3]))
            .with_force(force)
            .unwrap();
        inst.set_rhs(RowSet::Inequalities, &[0.0; 3]).unwrap();
        inst
    };
    let first = contacts([3, 17, 44]);
    let second = contacts([8, 29, 51]);
    let mut solver = ActiveSetBackend::new();
    for (k, inst) in [&first, &second, &first].into_iter().enumerate() {
        let s = solver.solve(inst);
        assert_matches_clarabel(&s, inst, &format!("instant {k}"));
    }
}

fn rows_in(a: sprs::CsMat<f64>, b: Vec<f64>) -> Rows {
    let n = a.cols();
    Instant::builder(
        matrix_from_triplets("mass", (n, n), (0..n).map(|i| (i, i, 1.0))).unwrap(),
        vec![0.0; n],
    )
    .inequalities(a, b)
    .build()
    .unwrap()
    .inequalities()
    .clone()
}

/// The direct backend given contacts says `not_applicable` (it used to say
/// `not_converged`, which reads as a failure to converge), with vectors of
/// the instant's sizes.
#[test]
fn direct_with_contacts_is_not_applicable() {
    let sc = scene(&SceneSpec {
        bodies: 4,
        joints: 2,
        contacts: 3,
        seed: 2,
        ..SceneSpec::default()
    });
    let s = DirectBackend::new().solve(&sc.instant);
    assert_eq!(s.status, Status::NotApplicable);
    assert_eq!(s.status.as_str(), "not_applicable");
    assert_eq!(s.acceleration.len(), 12);
    assert_eq!(s.multipliers_eq.len(), 4);
    assert_eq!(s.multipliers_in.len(), 3);
}

/// A mass whose values were set in place and are no longer positive
/// definite is a status (`numerical_error` from the fast backends), never
/// a panic; setting good values back solves again.
#[test]
fn mass_made_indefinite_in_place_is_a_status() {
    for links in [1, 5, 40] {
        let sc = chain(links, 3);
        let mut inst = sc.instant.clone();
        let good = inst.mass().data().to_vec();
        // -M is symmetric and negative definite.
        let bad: Vec<f64> = good.iter().map(|v| -v).collect();
        inst.set_mass_values(&bad).unwrap();
        let mut direct = DirectBackend::new();
        let mut active = ActiveSetBackend::new();
        let mut auto = AutoBackend::new();
        for b in [&mut direct as &mut dyn Backend, &mut active, &mut auto] {
            let s = b.solve(&inst);
            assert_ne!(s.status, Status::Solved, "{links} links: {}", b.name());
            assert_eq!(s.acceleration.len(), inst.dim());
        }
        assert_eq!(direct.solve(&inst).status, Status::NumericalError);
        assert!(inst.mass_factor().is_err());
        inst.set_mass_values(&good).unwrap();
        let s = direct.solve(&inst);
        assert!(
            rel(&s.acceleration, &sc.acceleration) < 1e-9,
            "{links} links"
        );
    }
}

/// Setters refuse bad values with typed errors and leave the instant as
/// it was.
#[test]
fn setters_validate_values() {
    let mut inst = chain(3, 1).instant;
    let before = inst.clone();
    assert!(inst.set_force(&[1.0]).is_err());
    assert!(inst.set_force(&[f64::NAN; 9]).is_err());
    assert!(inst.set_rhs(RowSet::Equalities, &[0.0; 5]).is_err());
    let mut rows = inst.equalities().matrix().data().to_vec();
    rows[0] = f64::INFINITY;
    assert!(inst.set_row_values(RowSet::Equalities, &rows).is_err());
    // Break the symmetry of one off-diagonal pair.
    let mut mass = inst.mass().data().to_vec();
    let off = (0..inst.dim())
        .flat_map(|i| {
            let m = inst.mass();
            let r = m.indptr().outer_inds_sz(i);
            r.filter(move |&e| m.indices()[e] != i)
        })
        .next()
        .unwrap();
    mass[off] += 1.0;
    assert!(matches!(
        inst.set_mass_values(&mass),
        Err(zwang_instant::InstantError::NotSymmetric { .. })
    ));
    assert_eq!(inst.force(), before.force());
    assert_eq!(inst.mass(), before.mass());
    assert_eq!(inst.structure_id(), before.structure_id());
}

/// One backend, instants of different sizes one after the other: every
/// solution has the sizes of its own instant.
#[test]
fn reused_backends_across_sizes_give_the_right_lengths() {
    let instants: Vec<Instant> = [(1, 0), (30, 10), (2, 1), (60, 0), (3, 3)]
        .iter()
        .enumerate()
        .map(|(k, &(bodies, contacts))| {
            scene(&SceneSpec {
                bodies,
                joints: bodies - 1,
                ground_pin: true,
                contacts,
                coupled_mass: k % 2 == 1,
                seed: k as u64,
                ..SceneSpec::default()
            })
            .instant
        })
        .collect();
    let mut backends: Vec<Box<dyn Backend>> = vec![
        Box::new(DirectBackend::new()),
        Box::new(ActiveSetBackend::new()),
        Box::new(AutoBackend::new()),
        Box::new(ClarabelBackend::new()),
    ];
    let mut out = Solution::empty();
    for b in &mut backends {
        for inst in &instants {
            b.solve_into(inst, &mut out);
            assert_eq!(out.acceleration.len(), inst.dim(), "{}", b.name());
            assert_eq!(out.multipliers_eq.len(), inst.equalities().len());
            assert_eq!(out.multipliers_in.len(), inst.inequalities().len());
            if b.applies(inst) {
                assert_eq!(out.status, Status::Solved, "{}", b.name());
            }
        }
    }
}

/// Root cause: on the dense Schur path a selection whose `S_FF` has a
/// small pivot is factored a second time with regularization, but the
/// second pass refilled only the entries of `S_FF`'s pattern and inherited
/// the first factor's fill-in elsewhere: a wrong factor, a refinement that
/// stagnated, and an equality instant called infeasible (found by the
/// property tests; the active set cycled on it).
#[test]
fn regularized_schur_refactor_does_not_inherit_fill_in() {
    let sc = scene(&SceneSpec {
        bodies: 6,
        joints: 5,
        ground_pin: true,
        contacts: 3,
        active_fraction: 0.389789393875292,
        full_blocks: true,
        coupled_mass: false,
        seed: 6225759061138877566,
    });
    for mut b in [
        Box::new(ActiveSetBackend::new()) as Box<dyn Backend>,
        Box::new(AutoBackend::new()),
    ] {
        let s = b.solve(&sc.instant);
        assert_eq!(s.status, Status::Solved, "{}", s.backend);
        assert!(
            rel(&s.acceleration, &sc.acceleration) < 1e-9,
            "{}",
            s.backend
        );
        assert!(
            rel(&s.multipliers_in, &sc.multipliers_in) < 1e-8,
            "{}",
            s.backend
        );
    }
}

/// A backend called directly on an instant with a row of order 3 read the
/// row as an acceleration row and "solved" a QP that does not exist (the
/// generalized compulsion is linear in q''', Zhang et al. eq 12): the
/// check for rows of higher order lived only in the command line. Every
/// backend now answers `NotApplicable`, sized, and says it does not apply.
#[test]
fn backends_solved_instants_of_higher_order() {
    // M = diag(1, 1), Q = (0, -9.81); row (0.3, 9.81) q''' = 0 of order 3.
    let mass = matrix_from_triplets("mass", (2, 2), [(0, 0, 1.0), (1, 1, 1.0)]).unwrap();
    let a = matrix_from_triplets("equalities.A", (1, 2), [(0, 0, 0.3), (0, 1, 9.81)]).unwrap();
    let instant = Instant::builder(mass, vec![0.0, -9.81])
        .equalities(a, vec![0.0])
        .equality_orders(vec![3])
        .build()
        .unwrap();
    let backends: Vec<Box<dyn Backend>> = vec![
        Box::new(AutoBackend::new()),
        Box::new(DirectBackend::new()),
        Box::new(ActiveSetBackend::new()),
        Box::new(ClarabelBackend::new()),
    ];
    for mut b in backends {
        assert!(!b.applies(&instant), "{}", b.name());
        let s = b.solve(&instant);
        assert_eq!(s.status, Status::NotApplicable, "{}", b.name());
        assert_eq!((s.acceleration.len(), s.multipliers_eq.len()), (2, 1));
    }
}
