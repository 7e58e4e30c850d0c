//! Which attributes each element takes: those read, those that only draw
//! (read past silently), MuJoCo's soft-contact and solver parameters (read
//! past and listed in `ignored`), and those refused until supported.

use std::collections::BTreeSet;

use crate::error::{MjcfError, Result};
use crate::xml::Element;

/// The attributes of one kind of element.
pub(crate) struct Kind {
    /// The name in `ignored` (`geom` for `geom.solref`).
    pub name: &'static str,
    /// Read.
    pub read: &'static [&'static str],
    /// Read past: looks, groups, user data.
    pub silent: &'static [&'static str],
    /// Read past and listed: they change MuJoCo's soft physics only.
    pub soft: &'static [&'static str],
    /// Refused with a reason when present.
    pub refused: &'static [(&'static str, &'static str)],
}

const ORIENT: [&str; 5] = ["quat", "axisangle", "euler", "xyaxes", "zaxis"];

macro_rules! with_orientation {
    ($($a:expr),* $(,)?) => {
        &[$($a,)* ORIENT[0], ORIENT[1], ORIENT[2], ORIENT[3], ORIENT[4]]
    };
}

pub(crate) const BODY: Kind = Kind {
    name: "body",
    read: with_orientation!["name", "childclass", "pos", "mocap", "gravcomp"],
    silent: &["user"],
    soft: &[],
    refused: &[],
};

/// MuJoCo's softness of a limit and of dry friction: joints and tendons
/// both take it, and it is listed as ignored.
const LIMIT_SOFT: &[&str] = &[
    "margin",
    "solreflimit",
    "solimplimit",
    "solreffriction",
    "solimpfriction",
];

pub(crate) const JOINT: Kind = Kind {
    name: "joint",
    read: &[
        "name",
        "class",
        "type",
        "pos",
        "axis",
        "range",
        "limited",
        "ref",
        "springref",
        "stiffness",
        "damping",
        "armature",
        "frictionloss",
    ],
    silent: &["group", "user"],
    soft: LIMIT_SOFT,
    refused: &[
        (
            "springdamper",
            "a spring given by its time constant is not supported",
        ),
        (
            "actuatorfrcrange",
            "actuator force limits at joints are not supported",
        ),
        (
            "actuatorfrclimited",
            "actuator force limits at joints are not supported",
        ),
        ("actuatorgravcomp", "gravity compensation is not supported"),
    ],
};

pub(crate) const FREEJOINT: Kind = Kind {
    name: "freejoint",
    read: &["name", "align"],
    silent: &["group"],
    soft: &[],
    refused: &[],
};

pub(crate) const GEOM: Kind = Kind {
    name: "geom",
    read: with_orientation![
        "name",
        "class",
        "type",
        "size",
        "pos",
        "fromto",
        "mass",
        "density",
        "friction",
        "condim",
        "contype",
        "conaffinity",
        "shellinertia",
        "fluidshape",
    ],
    silent: &["group", "rgba", "material", "user", "fitscale"],
    soft: &["solref", "solimp", "solmix", "margin", "gap", "priority"],
    refused: &[
        ("hfield", "height fields are not supported"),
        ("mesh", "meshes are not supported"),
        ("fluidcoef", "fluid forces are not supported"),
        ("plugin", "plugins are not supported"),
    ],
};

pub(crate) const SITE: Kind = Kind {
    name: "site",
    read: with_orientation!["name", "class", "pos", "fromto", "type", "size"],
    silent: &["group", "rgba", "material", "user"],
    soft: &[],
    refused: &[],
};

pub(crate) const INERTIAL: Kind = Kind {
    name: "inertial",
    read: with_orientation!["pos", "mass", "diaginertia", "fullinertia"],
    silent: &[],
    soft: &[],
    refused: &[],
};

pub(crate) const TENDON: Kind = Kind {
    name: "tendon",
    read: &[
        "name",
        "class",
        "range",
        "limited",
        "stiffness",
        "damping",
        "springlength",
        "frictionloss",
        "armature",
    ],
    silent: &["group", "width", "rgba", "material", "user"],
    soft: LIMIT_SOFT,
    refused: &[
        (
            "actuatorfrcrange",
            "actuator force limits at tendons are not supported",
        ),
        (
            "actuatorfrclimited",
            "actuator force limits at tendons are not supported",
        ),
    ],
};

/// What every actuator takes; each shortcut adds its own.
const ACTUATOR_READ: &[&str] = &[
    "name",
    "class",
    "joint",
    "tendon",
    "gear",
    "ctrlrange",
    "ctrllimited",
    "forcerange",
    "forcelimited",
    "actlimited",
    "actrange",
    "gaintype",
    "biastype",
    "dyntype",
    "gainprm",
    "biasprm",
    "dynprm",
    "actdim",
    "actearly",
    "kp",
    "kv",
    "dampratio",
    "timeconst",
    "inheritrange",
];

/// The attributes of actuator shortcut `tag` it does not take (MuJoCo's
/// schema: `motor` takes no gains, `position` no `gainprm`, ...).
pub(crate) fn actuator_excludes(tag: &str, attr: &str) -> bool {
    const GENERAL_ONLY: &[&str] = &[
        "gaintype", "biastype", "dyntype", "gainprm", "biasprm", "dynprm", "actdim", "actearly",
    ];
    match tag {
        "general" => matches!(
            attr,
            "kp" | "kv" | "dampratio" | "timeconst" | "inheritrange"
        ),
        "motor" => {
            GENERAL_ONLY.contains(&attr)
                || matches!(
                    attr,
                    "kp" | "kv" | "dampratio" | "timeconst" | "inheritrange"
                )
        }
        "position" => GENERAL_ONLY.contains(&attr),
        "velocity" => {
            GENERAL_ONLY.contains(&attr)
                || matches!(attr, "kp" | "dampratio" | "timeconst" | "inheritrange")
        }
        _ => false,
    }
}

pub(crate) const ACTUATOR: Kind = Kind {
    name: "actuator",
    read: ACTUATOR_READ,
    silent: &["group", "user", "lengthrange"],
    soft: &[],
    refused: &[
        ("site", "site transmissions are not supported"),
        ("refsite", "site transmissions are not supported"),
        ("body", "body (adhesion) transmissions are not supported"),
        ("cranksite", "slider-crank transmissions are not supported"),
        ("slidersite", "slider-crank transmissions are not supported"),
        (
            "cranklength",
            "slider-crank transmissions are not supported",
        ),
        (
            "jointinparent",
            "jointinparent transmissions are not supported",
        ),
        ("plugin", "plugins are not supported"),
    ],
};

pub(crate) const EQUALITY: Kind = Kind {
    name: "equality",
    read: &[
        "name", "class", "active", "body1", "body2", "anchor", "relpose", "joint1", "joint2",
        "tendon1", "tendon2", "polycoef",
    ],
    silent: &["user"],
    soft: &["solref", "solimp", "torquescale"],
    refused: &[
        (
            "site1",
            "equality constraints between sites are not supported",
        ),
        (
            "site2",
            "equality constraints between sites are not supported",
        ),
    ],
};

/// Checks the attributes of `element` against `kind`: an unknown
/// attribute is an error, a refused one a refusal, a soft one listed in
/// `ignored`.
pub(crate) fn check(kind: &Kind, element: &Element, ignored: &mut BTreeSet<String>) -> Result<()> {
    let path = element.path.as_str();
    for a in element.attrs.iter().map(|(a, _)| a.as_str()) {
        if kind.read.contains(&a) || kind.silent.contains(&a) {
            continue;
        }
        if kind.soft.contains(&a) {
            ignored.insert(format!("{}.{a}", kind.name));
            continue;
        }
        if let Some((_, why)) = kind.refused.iter().find(|(r, _)| *r == a) {
            return Err(MjcfError::attr(path, a, format!("{why} (refused)")));
        }
        return Err(MjcfError::attr(path, a, "unknown attribute"));
    }
    Ok(())
}
