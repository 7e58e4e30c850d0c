//! The reader's one error: where (an element's path below `<mujoco>`, and
//! an attribute) and what.

use thiserror::Error;

/// Why a file was not read: one line, `mjcf: PATH[.ATTRIBUTE]: MESSAGE`,
/// the path's steps `tag[name]`, `tag[i]` (0-based among same-tag
/// siblings) or `tag` alone when it has no such siblings.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("mjcf: {at}: {message}")]
pub struct MjcfError {
    /// The element's path, with `.attribute` when one is at fault.
    pub at: String,
    /// What is wrong.
    pub message: String,
}

impl MjcfError {
    /// An error at `at` (a path, possibly with `.attribute`).
    pub fn new(at: impl Into<String>, message: impl Into<String>) -> MjcfError {
        MjcfError {
            at: at.into(),
            message: message.into().replace('\n', " "),
        }
    }

    /// An error at attribute `attr` of the element at `path`.
    pub fn attr(path: &str, attr: &str, message: impl Into<String>) -> MjcfError {
        MjcfError::new(format!("{path}.{attr}"), message)
    }
}

/// The reader's results.
pub type Result<T> = std::result::Result<T, MjcfError>;
