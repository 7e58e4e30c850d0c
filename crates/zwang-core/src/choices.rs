//! The choices a scene file names and the solvers and steppers obey: one
//! type each, so that nothing maps one copy onto another.

/// Which friction law a contact problem enforces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Friction {
    /// Coulomb's law as it is (`"exact"`), with De Saxce's modified
    /// velocity: sliding contacts keep `u_N = 0`.
    #[default]
    Exact,
    /// The cone complementarity relaxation (`"convex"`: `u in K*`, no
    /// `mu |u_T|` term): a convex problem, what MuJoCo, Drake and Chrono
    /// solve.
    Convex,
}

/// What a time stepper does with a step whose contact problem (or overlap
/// correction) ended above the tolerance. Either way the step is counted
/// in the run's report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum OnUnsolved {
    /// Integrate the best answer found and go on (`"warn"`): the run's
    /// report counts the step, and the CLI warns.
    #[default]
    Warn,
    /// End the run before the step (`"fail"`): the state is the step's
    /// start, the status `failed`, the reason the error.
    Fail,
}
