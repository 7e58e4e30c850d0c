//! What a stepper needs of a mechanism, whatever its coordinates, in four
//! roles: the state's coordinates, the instant at `(t, q, v)` written in
//! place (with the joints), the contacts' geometry, and the bodies for
//! reports.

use crate::ModelError;
use zwang_core::Mode;
use zwang_instant::Instant;

/// A contact between events: the stepper keeps one per contact, the
/// mechanism writes the instant for it. Its [`Mode`]:
/// - `Open`: not touching, no row;
/// - `Slide`: touching and sliding, a unilateral normal row and (if the
///   contact has friction) a friction entry with the slip sign `+1` or
///   `-1` (the sign of the tangential velocity), kept beside the mode;
/// - `Stick`: touching at zero tangential velocity, a unilateral normal
///   row and a tangential equality row whose force is checked against the
///   cone. On a frictionless contact it acts as `Slide` (no tangential
///   row).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContactState {
    /// Open, sliding or sticking.
    pub mode: Mode,
    /// The slip sign when sliding (`+1` or `-1`), 0 otherwise.
    pub slip: f64,
}

impl ContactState {
    /// Not touching.
    pub const OPEN: ContactState = ContactState {
        mode: Mode::Open,
        slip: 0.0,
    };
    /// Touching at zero tangential velocity.
    pub const STICK: ContactState = ContactState {
        mode: Mode::Stick,
        slip: 0.0,
    };

    /// Touching and sliding with the slip sign `slip` (`+1` or `-1`; the
    /// mechanism refuses others when it writes the instant).
    pub fn slide(slip: f64) -> ContactState {
        ContactState {
            mode: Mode::Slide,
            slip,
        }
    }

    /// The slip sign when sliding, `None` otherwise.
    pub fn sliding(self) -> Option<f64> {
        (self.mode == Mode::Slide).then_some(self.slip)
    }

    /// Whether the contact is touching (a normal row in the instant).
    pub fn is_closed(self) -> bool {
        self.mode.is_closed()
    }
}

/// Where a contact's rows sit in an instant written for a set of modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ContactRows {
    /// Its normal row among the inequalities (when closed).
    pub normal: Option<usize>,
    /// Its tangential row among the equalities (when sticking, with
    /// friction).
    pub tangent: Option<usize>,
    /// Its entry among the instant's sliding (friction) entries.
    pub sliding: Option<usize>,
    /// Its entry among the instant's sticking entries.
    pub sticking: Option<usize>,
}

/// The layout of an instant written for a set of modes: the two-sided
/// rows of the mechanism come first among the equalities (their number is
/// `joint_rows`), then the tangential rows of sticking contacts.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Layout {
    /// Number of two-sided rows of the mechanism (joints).
    pub joint_rows: usize,
    /// One per contact.
    pub contacts: Vec<ContactRows>,
}

/// The state of one body, for reports: position and velocity in world
/// coordinates; orientation and its rate for bodies that have them.
#[derive(Debug, Clone, PartialEq)]
pub struct BodyState {
    /// Centre of mass, world.
    pub position: Vec<f64>,
    /// Velocity of the centre of mass.
    pub velocity: Vec<f64>,
    /// Planar angle (rigid bodies).
    pub angle: Option<f64>,
    /// Planar angular velocity (rigid bodies).
    pub angular_velocity: Option<f64>,
}

/// A mechanism in some coordinates `q` (length `nq`) with velocities `v`
/// (length `nv`, the instant's dimension): everything an event-driven
/// stepper asks of it, its four roles together ([`Coordinates`],
/// [`InstantWriter`], [`Contacts`], [`Bodies`]). Nothing here is planar: a
/// spatial model (quaternions in `q`, angular velocities in `v`) implements
/// the same traits. Implement the four roles; `Mechanism` comes with them.
pub trait Mechanism: Coordinates + InstantWriter + Contacts + Bodies {}

impl<T: Coordinates + InstantWriter + Contacts + Bodies + ?Sized> Mechanism for T {}

/// The state and its coordinates: the sizes of `q` and `v`, the initial
/// state, and how `q` moves with `v`. The integrators and projections of a
/// stepper use it to advance and correct the state.
pub trait Coordinates {
    /// Length of `q`.
    fn nq(&self) -> usize;
    /// Length of `v` (the instant's `n`).
    fn nv(&self) -> usize;
    /// The initial state.
    fn initial_state(&self, q: &mut [f64], v: &mut [f64]);
    /// `dq/dt` from `(q, v)`.
    fn position_rate(&self, q: &[f64], v: &[f64], qdot: &mut [f64]);
    /// `q` moved by the velocity-space displacement `dv` (a projection's
    /// correction), in place.
    fn displace(&self, q: &mut [f64], dv: &[f64]);
}

/// The instant Gauss's principle is solved on, written at `(t, q, v)` for
/// a set of contact modes, and the mechanism's two-sided rows (joints):
/// their violations, velocity targets and names. The stepper's dynamics
/// and projections use it.
pub trait InstantWriter {
    /// Builds the instant at `(t, q, v)` for the contact modes (one per
    /// contact), and its layout. Its structure holds while the modes do.
    fn build_instant(
        &self,
        t: f64,
        q: &[f64],
        v: &[f64],
        modes: &[ContactState],
    ) -> Result<(Instant, Layout), ModelError>;
    /// Writes the values at `(t, q, v)` into an instant built by
    /// [`InstantWriter::build_instant`] for the same modes (no allocation).
    fn update_instant(
        &self,
        t: f64,
        q: &[f64],
        v: &[f64],
        modes: &[ContactState],
        instant: &mut Instant,
    ) -> Result<(), ModelError>;
    /// The accelerations `M^-1 Q` at `(t, q, v)` into `a`, where the modes
    /// leave the instant without a row and the mechanism has a cheaper way
    /// to them than forming and factoring `M` (a tree's articulated-body
    /// recursion, linear in its dofs where `M`'s factor is cubic along a
    /// chain). `None`: the instant is written and solved. Default `None`.
    fn free_acceleration(
        &self,
        t: f64,
        q: &[f64],
        v: &[f64],
        modes: &[ContactState],
        a: &mut [f64],
    ) -> Option<Result<(), ModelError>> {
        let _ = (t, q, v, modes, a);
        None
    }
    /// The position-level values of the rows of the instant written for
    /// `modes`: joint violations (then zero for sticking rows) in `eq`,
    /// gaps of the closed contacts in `ineq`.
    /// Rows given at velocity level only (nonholonomic constraints) have
    /// no position-level value: they write 0.
    fn violations(
        &self,
        t: f64,
        q: &[f64],
        modes: &[ContactState],
        eq: &mut [f64],
        ineq: &mut [f64],
    );
    /// The right-hand sides `c` of the velocity-level equalities
    /// `J v = c` of the instant written for `modes` (in its equality
    /// order), at the velocity `v` about to be projected: nonzero for
    /// rheonomic constraints (`phi(q, t)`) and for nonholonomic ones
    /// `B(q, t) v + beta = 0`; for a nonlinear `f(q, v, t) = 0` the
    /// linearization at `v`, `c = J v - f` (one Newton step per
    /// projection). A velocity projection moves `v` onto them. Default:
    /// all zero (scleronomic joints and sticking rows).
    fn velocity_targets(
        &self,
        t: f64,
        q: &[f64],
        v: &[f64],
        modes: &[ContactState],
        eq: &mut [f64],
    ) {
        let _ = (t, q, v, modes);
        eq.fill(0.0);
    }

    /// What two-sided row `row` of the instant is, in the words of the
    /// mechanism's description (for messages). Default: `joint row N`.
    fn joint_row_name(&self, row: usize) -> String {
        format!("joint row {row}")
    }
}

/// Refuses contact modes for a mechanism without contacts (`what` names
/// it: "a system in generalized coordinates").
pub fn no_contacts(modes: &[ContactState], what: &str) -> Result<(), ModelError> {
    if modes.is_empty() {
        return Ok(());
    }
    Err(ModelError::Invalid {
        key: "modes".into(),
        message: format!("{} given, {what} has no contacts", modes.len()),
    })
}

/// The contacts: their names, coefficients, gaps and velocities. The
/// stepper uses it to find events (impact, lift-off, stick-slip) and
/// reports use it to sample the contacts. Every method has the default of
/// a mechanism without contacts (`impl Contacts for M {}`, as the spatial
/// and the generalized mechanisms are); one with contacts gives them all.
pub trait Contacts {
    /// Number of contacts. Default 0.
    fn contacts(&self) -> usize {
        0
    }
    /// A contact's name.
    fn contact_name(&self, k: usize) -> &str {
        let _ = k;
        ""
    }
    /// A contact's Coulomb coefficient.
    fn friction(&self, k: usize) -> f64 {
        let _ = k;
        0.0
    }
    /// A contact's viscous coefficient `c` (tangential force `-c v_t`
    /// while touching). Default 0.
    fn viscous(&self, k: usize) -> f64 {
        let _ = k;
        0.0
    }
    /// A contact's Newton restitution coefficient.
    fn restitution(&self, k: usize) -> f64 {
        let _ = k;
        0.0
    }
    /// A contact's gap (positive when apart).
    fn gap(&self, k: usize, q: &[f64]) -> f64 {
        let _ = (k, q);
        f64::INFINITY
    }
    /// A contact's normal and tangential velocity `(g', v_t)`.
    fn contact_velocity(&self, k: usize, q: &[f64], v: &[f64]) -> (f64, f64) {
        let _ = (k, q, v);
        (0.0, 0.0)
    }
}

/// The bodies, for reports: their names and states, and the mechanism's
/// energy. Reports, CSV writers, plots and drawings read it; the stepper
/// does not need it to move the state.
pub trait Bodies {
    /// Number of bodies.
    fn bodies(&self) -> usize;
    /// A body's name.
    fn body_name(&self, b: usize) -> &str;
    /// A body's state.
    fn body_state(&self, b: usize, q: &[f64], v: &[f64]) -> BodyState;
    /// Kinetic + potential energy: gravity and springs, plus, in a moving
    /// frame, the potential of its convective forces (the Jacobi integral,
    /// conserved when the frame's motion is constant); `T + V` for a system
    /// in generalized coordinates.
    fn energy(&self, t: f64, q: &[f64], v: &[f64]) -> f64;
}

/// A part of a mechanism that moves on its own: no joint, force or
/// contact links it to the rest, so it can be integrated with its own steps
/// and events (a stepper then pays for each part's events alone, not for
/// every part at every event of any). Its model is a mechanism of its own;
/// the maps place its coordinates, contacts and bodies among the whole's.
#[derive(Debug, Clone)]
pub struct Island<M> {
    /// The part as a mechanism.
    pub model: M,
    /// Its `q` entries among the whole's, in its own order.
    pub q: Vec<usize>,
    /// Its `v` entries among the whole's.
    pub v: Vec<usize>,
    /// Its contacts among the whole's.
    pub contacts: Vec<usize>,
    /// Its bodies among the whole's.
    pub bodies: Vec<usize>,
}

#[cfg(test)]
mod tests {
    use super::{ContactState, Mode};

    #[test]
    fn the_slip_sign_is_read_only_when_sliding() {
        assert_eq!(ContactState::slide(-1.0).sliding(), Some(-1.0));
        assert_eq!(ContactState::OPEN.sliding(), None);
        assert_eq!(ContactState::STICK.sliding(), None);
        assert_eq!(ContactState::STICK.mode, Mode::Stick);
        assert!(!ContactState::OPEN.is_closed());
        assert!(ContactState::slide(1.0).is_closed() && ContactState::STICK.is_closed());
    }
}
