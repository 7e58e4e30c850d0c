//! The variational forms of Gauss's principle (work in progress).
