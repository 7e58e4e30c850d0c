//! Coulomb friction and the equivalence checker (work in progress).
