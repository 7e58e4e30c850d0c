//! Large scenes: names are indexed, so many bodies, and the references to
//! them, are read correctly (and in linear time; no timing is asserted).

use zwang_scene::{parse_scene, BodyRef, Force};

/// `n` particles `p0`, `p1`, ... on the x axis, each pulled by a spring
/// towards the previous one (the first towards ground), plus `extra`.
fn chain(n: usize, extra: &str) -> String {
    let mut text = String::from("[scene]\ndimension = 2\nduration = 0.001\n\n");
    for i in 0..n {
        text.push_str(&format!(
            "[[body]]\nname = \"p{i}\"\nkind = \"particle\"\nmass = 1\nposition = [{i}, 0]\n\n"
        ));
    }
    for i in 0..n {
        let previous = match i {
            0 => "ground".to_string(),
            _ => format!("p{}", i - 1),
        };
        text.push_str(&format!(
            "[[force]]\nkind = \"spring\"\nbodies = [\"{previous}\", \"p{i}\"]\n\
             anchors = [[0, 0], [0, 0]]\nstiffness = 1\n\n"
        ));
    }
    text.push_str(extra);
    text
}

#[test]
fn twenty_thousand_bodies_and_their_references() {
    let n = 20_000;
    let scene = parse_scene(&chain(n, "")).unwrap();
    assert_eq!(scene.bodies.len(), n);
    assert_eq!(scene.forces.len(), n);
    for (i, (body, force)) in scene.bodies.iter().zip(&scene.forces).enumerate() {
        assert_eq!(body.name, format!("p{i}"));
        assert_eq!(body.position, [i as f64, 0.0]);
        let Force::Spring { bodies, .. } = force else {
            panic!("force[{i}] is not a spring");
        };
        let previous = i.checked_sub(1).map_or(BodyRef::Ground, BodyRef::Body);
        assert_eq!(*bodies, [previous, BodyRef::Body(i)]);
    }
}

#[test]
fn a_duplicate_among_twenty_thousand_names_the_first() {
    let duplicate =
        "[[body]]\nname = \"p12345\"\nkind = \"particle\"\nmass = 1\nposition = [0, 1]\n";
    // The extra body comes after the forces in the text, but `[[body]]`
    // is one array: it is body[20000].
    let err = parse_scene(&chain(20_000, duplicate)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "body[20000].name: duplicate name \"p12345\" (also body[12345])"
    );
}

#[test]
fn an_unknown_body_among_many_is_named() {
    let contact = "[[contact]]\nbody = \"p20000\"\npoint = [0, 0]\n\
                   surface = { kind = \"line\", point = [0, 0], normal = [0, 1] }\n";
    let err = parse_scene(&chain(20_000, contact)).unwrap_err();
    assert_eq!(err.to_string(), "contact[0].body: unknown body \"p20000\"");
}

#[test]
fn duplicate_contact_names_among_many() {
    let mut contacts = String::new();
    for i in 0..5_000 {
        // Contact 4999 takes the default name of contact 17.
        let name = if i == 4_999 {
            "contact17".to_string()
        } else {
            format!("contact{i}")
        };
        contacts.push_str(&format!(
            "[[contact]]\nname = \"{name}\"\nbody = \"p{i}\"\npoint = [0, 0]\n\
             surface = {{ kind = \"line\", point = [0, -1], normal = [0, 1] }}\n\n"
        ));
    }
    let err = parse_scene(&chain(5_000, &contacts)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "contact[4999].name: duplicate name \"contact17\" (also contact[17])"
    );
}
