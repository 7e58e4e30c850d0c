//! The one error type of the crate.

use thiserror::Error;

/// Why a scene file was refused: the key at fault and what is wrong with
/// it. Displayed on one line as `{key}: {message}`, for example
/// `body[1].mass: must be > 0`.
///
/// Keys are written as in the file, with 0-based indices of the array
/// tables in file order: `scene.duration`, `body[0].inertia`,
/// `joint[2].anchors[1]`, `contact[0].surface.normal`. A TOML syntax error
/// has the key `scene` and the line and column (1-based) in the message.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{key}: {message}")]
pub struct SceneError {
    /// The key at fault, e.g. `body[1].mass`.
    pub key: String,
    /// What is wrong, e.g. `must be > 0`.
    pub message: String,
}

impl SceneError {
    /// An error for `key`. Line breaks in `key` or `message` are replaced
    /// so that the error stays on one line.
    pub fn new(key: impl Into<String>, message: impl Into<String>) -> Self {
        SceneError {
            key: one_line(key.into()),
            message: one_line(message.into()),
        }
    }
}

/// `text` with each run of line breaks (and the blanks around it) replaced
/// by `"; "`.
fn one_line(text: String) -> String {
    if !text.contains(['\n', '\r']) {
        return text;
    }
    text.split(['\n', '\r'])
        .map(str::trim)
        .filter(|part| !part.is_empty())
        .collect::<Vec<_>>()
        .join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_is_key_colon_message() {
        let e = SceneError::new("body[1].mass", "must be > 0");
        assert_eq!(e.to_string(), "body[1].mass: must be > 0");
    }

    #[test]
    fn line_breaks_are_joined() {
        let e = SceneError::new("scene", "invalid key\nexpected `=`\r\n");
        assert_eq!(e.to_string(), "scene: invalid key; expected `=`");
    }
}
