//! The mode of a contact, one enum for the whole project: the mode the
//! event-driven stepper keeps for each contact between events (beside the
//! slip sign of a sliding contact), and the mode of one friction or
//! sticking entry in an answer of the acceleration-level contact problem.

/// The mode of a contact: open, sliding or sticking.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mode {
    /// Not touching, or separating: no normal force, no friction. (A
    /// stepper's open contact has no row in the instant; an answer's open
    /// entry has `lambda_n = 0` and a positive normal acceleration.)
    Open,
    /// Touching and sliding: a unilateral normal row and (with friction) a
    /// friction entry against the slip. In an answer, also a sticking
    /// entry that must start to slip.
    Slide,
    /// Touching at zero tangential velocity: a unilateral normal row and a
    /// tangential equality row whose force stays inside the friction cone
    /// (tangential acceleration zero). On a frictionless contact the
    /// stepper's `Stick` acts as `Slide` (no tangential row).
    Stick,
}

impl Mode {
    /// Whether the contact is touching (not [`Mode::Open`]).
    pub fn is_closed(self) -> bool {
        self != Mode::Open
    }

    /// The spelling of the JSON output (`open`, `slide`, `stick`).
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Open => "open",
            Mode::Slide => "slide",
            Mode::Stick => "stick",
        }
    }
}

impl std::fmt::Display for Mode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::Mode;

    #[test]
    fn spellings_and_closedness() {
        let all = [Mode::Open, Mode::Slide, Mode::Stick];
        let words: Vec<String> = all.iter().map(|m| m.to_string()).collect();
        assert_eq!(words, ["open", "slide", "stick"]);
        assert_eq!(all.map(Mode::as_str), ["open", "slide", "stick"]);
        assert_eq!(all.map(Mode::is_closed), [false, true, true]);
    }
}
