//! The zwang command line (work in progress).
