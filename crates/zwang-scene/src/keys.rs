//! Parameters of a scene by key path: `contact.floor.restitution`,
//! `scene.duration`, `solver.time_step`, `body[1].mass`. The Python
//! package's `Scene.set` and the sweeps (`zwang sweep`) change a scene
//! with them.

use crate::error::SceneError;
use crate::parse::parse_scene_table;
use crate::types::Scene;
use toml::{Table, Value};

/// The array tables of a scene file, those a path can name an element of.
const ARRAY_TABLES: &[&str] = &["body", "joint", "contact", "force"];
/// The plain tables.
const TABLES: &[&str] = &["scene", "frame", "solver"];

/// One piece of a path: a key and the indices after it (`anchors[1]`).
struct Piece<'a> {
    key: &'a str,
    indices: Vec<usize>,
}

fn pieces(path: &str) -> Result<Vec<Piece<'_>>, SceneError> {
    let bad = || {
        SceneError::new(
            path,
            "not a key path (TABLE.NAME.KEY, TABLE[i].KEY, scene.KEY, solver.KEY)",
        )
    };
    let mut out = Vec::new();
    for part in path.split('.') {
        let (key, mut rest) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        if key.is_empty() {
            return Err(bad());
        }
        let mut indices = Vec::new();
        while !rest.is_empty() {
            let close = rest.find(']').ok_or_else(bad)?;
            let index = rest
                .get(1..close)
                .filter(|_| rest.starts_with('['))
                .and_then(|i| i.parse().ok())
                .ok_or_else(bad)?;
            indices.push(index);
            rest = &rest[close + 1..];
        }
        out.push(Piece { key, indices });
    }
    Ok(out)
}

/// Sets the value at `path` in a scene file's table `root` (as read from
/// the TOML); returns the key as the file's errors name it, with indices
/// (`contact[0].restitution` for `contact.floor.restitution`).
///
/// A path is `scene.KEY`, `solver.KEY` or `frame.KEY`; `TABLE.NAME.KEY`
/// for the `[[body]]` and `[[contact]]` tables, which have names; or
/// `TABLE[i].KEY` for any array table (`joint[0].length`, `force[1].stiffness`).
/// `KEY` may go on into inline tables and arrays:
/// `contact.floor.surface.normal`, `body.ball.position[1]`. A missing table
/// on the way is made (`solver.time_step` without a `[solver]` table); a
/// table that is not there by name or index, or an index past the end of
/// an array, is an error naming the path. Whether the key is one the format
/// knows is for [`parse_scene_table`] to say: [`with_key`] does both.
///
/// ```
/// let mut root: toml::Table = toml::from_str(
///     "[scene]\ndimension = 2\nduration = 1\n\
///      [[body]]\nname = \"ball\"\nkind = \"particle\"\nmass = 1\nposition = [0, 1]\n",
/// )
/// .unwrap();
/// let key = zwang_scene::set_key(&mut root, "body.ball.position[1]", 2.0.into()).unwrap();
/// assert_eq!(key, "body[0].position[1]");
/// assert_eq!(root["body"][0]["position"][1].as_float(), Some(2.0));
/// let e = zwang_scene::set_key(&mut root, "body.cat.mass", 2.0.into()).unwrap_err();
/// assert_eq!(e.to_string(), "body.cat.mass: no [[body]] named `cat` (names: ball)");
/// ```
pub fn set_key(root: &mut Table, path: &str, value: Value) -> Result<String, SceneError> {
    let pieces = pieces(path)?;
    let first = &pieces[0];
    let fail = |what: String| SceneError::new(path, what);
    let (mut table, mut canonical, rest): (&mut Table, String, &[Piece]) =
        if ARRAY_TABLES.contains(&first.key) {
            let name = first.key;
            let list = root
                .get_mut(name)
                .and_then(Value::as_array_mut)
                .ok_or_else(|| fail(format!("the scene has no [[{name}]] table")))?;
            let (index, rest) = match first.indices.as_slice() {
                [i] => (*i, &pieces[1..]),
                [] => {
                    let Some(wanted) = pieces.get(1) else {
                        return Err(fail(format!("{name}.NAME.KEY or {name}[i].KEY")));
                    };
                    fn named(t: &Value) -> Option<&str> {
                        t.get("name").and_then(Value::as_str)
                    }
                    let found = list.iter().position(|t| named(t) == Some(wanted.key));
                    let Some(i) = found.filter(|_| wanted.indices.is_empty()) else {
                        let names: Vec<&str> = list.iter().filter_map(named).collect();
                        return Err(fail(format!(
                            "no [[{name}]] named `{}` (names: {})",
                            wanted.key,
                            names.join(", ")
                        )));
                    };
                    (i, &pieces[2..])
                }
                _ => return Err(fail(format!("{name}[i]: one index"))),
            };
            let len = list.len();
            let table = list
                .get_mut(index)
                .and_then(Value::as_table_mut)
                .ok_or_else(|| fail(format!("there are {len} [[{name}]] tables")))?;
            (table, format!("{name}[{index}]"), rest)
        } else if TABLES.contains(&first.key) && first.indices.is_empty() {
            let table = root
                .entry(first.key)
                .or_insert_with(|| Value::Table(Table::new()))
                .as_table_mut()
                .ok_or_else(|| fail(format!("`{}` is not a table", first.key)))?;
            (table, first.key.to_string(), &pieces[1..])
        } else {
            return Err(fail(format!(
                "no table `{}` in a scene (tables: {}, {})",
                first.key,
                TABLES.join(", "),
                ARRAY_TABLES.join(", ")
            )));
        };
    let Some((last, within)) = rest.split_last() else {
        return Err(fail("names a table, not a key".into()));
    };
    for piece in within {
        canonical = format!("{canonical}.{}", piece.key);
        if !piece.indices.is_empty() {
            return Err(fail(format!(
                "`{canonical}`: an index only on the last key"
            )));
        }
        table = table
            .entry(piece.key)
            .or_insert_with(|| Value::Table(Table::new()))
            .as_table_mut()
            .ok_or_else(|| fail(format!("`{canonical}` is not a table")))?;
    }
    canonical = format!("{canonical}.{}", last.key);
    if last.indices.is_empty() {
        table.insert(last.key.to_string(), value);
        return Ok(canonical);
    }
    let mut slot = table
        .get_mut(last.key)
        .ok_or_else(|| fail(format!("`{canonical}` is not set: set the whole array")))?;
    for &i in &last.indices {
        canonical = format!("{canonical}[{i}]");
        let array = slot
            .as_array_mut()
            .ok_or_else(|| fail(format!("`{canonical}`: not an array")))?;
        let len = array.len();
        slot = array
            .get_mut(i)
            .ok_or_else(|| fail(format!("`{canonical}`: past the end ({len} entries)")))?;
    }
    *slot = value;
    Ok(canonical)
}

/// A copy of `root` with `value` at `path` ([`set_key`]), and the scene it
/// reads as ([`parse_scene_table`]). An error about the key set names it
/// as given (`contact.floor.restitutio: unknown key ...`); another error
/// the change causes is prefixed with the path.
pub fn with_key(root: &Table, path: &str, value: Value) -> Result<(Table, Scene), SceneError> {
    let mut copy = root.clone();
    let canonical = set_key(&mut copy, path, value)?;
    match parse_scene_table(&copy) {
        Ok(scene) => Ok((copy, scene)),
        Err(e) => Err(match e.key.strip_prefix(&canonical) {
            Some(rest) => SceneError::new(format!("{path}{rest}"), e.message),
            None => SceneError::new(path, e.to_string()),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BALL: &str = r#"
        [scene]
        dimension = 2
        duration = 1
        [[body]]
        name = "ball"
        kind = "particle"
        mass = 1
        position = [0, 1]
        [[contact]]
        name = "floor"
        body = "ball"
        point = [0, 0]
        surface = { kind = "line", point = [0, 0], normal = [0, 1] }
        restitution = 0.5
    "#;

    fn root() -> Table {
        toml::from_str(BALL).unwrap()
    }

    #[test]
    fn named_indexed_and_plain_tables() {
        let (_, scene) = with_key(&root(), "contact.floor.restitution", 0.7.into()).unwrap();
        assert_eq!(scene.contacts[0].restitution, 0.7);
        let (_, scene) = with_key(&root(), "contact[0].friction", 0.3.into()).unwrap();
        assert_eq!(scene.contacts[0].friction, 0.3);
        let (_, scene) = with_key(&root(), "scene.duration", 2.5.into()).unwrap();
        assert_eq!(scene.duration, 2.5);
        let (t, scene) = with_key(&root(), "solver.max_steps", 10.into()).unwrap();
        assert_eq!(scene.solver.max_steps, 10);
        assert!(t["solver"].is_table());
        let (_, scene) = with_key(&root(), "body.ball.position[1]", 3.0.into()).unwrap();
        assert_eq!(scene.bodies[0].position, [0.0, 3.0]);
        let (_, scene) = with_key(&root(), "contact.floor.surface.normal", {
            Value::Array(vec![0.0.into(), 2.0.into()])
        })
        .unwrap();
        let normal = match scene.contacts[0].surface {
            zwang_model::planar::Surface::Line { normal, .. } => normal,
            _ => unreachable!(),
        };
        assert_eq!(normal, [0.0, 1.0]);
    }

    #[test]
    fn a_bad_key_is_named_as_given() {
        for (path, value, says) in [
            (
                "contact.floor.restitutio",
                0.7,
                "contact.floor.restitutio: unknown key",
            ),
            (
                "contact.floor.restitution",
                1.5,
                "contact.floor.restitution: ",
            ),
            (
                "contact.roof.restitution",
                0.7,
                "no [[contact]] named `roof`",
            ),
            ("joint[0].length", 1.0, "no [[joint]] table"),
            (
                "contact[3].restitution",
                0.7,
                "there are 1 [[contact]] tables",
            ),
            ("nope.x", 1.0, "no table `nope`"),
            ("scene", 1.0, "names a table"),
            ("body.ball.position[5]", 1.0, "past the end"),
            ("scene..duration", 1.0, "not a key path"),
        ] {
            let e = with_key(&root(), path, value.into())
                .unwrap_err()
                .to_string();
            assert!(e.starts_with(path) && e.contains(says), "{path}: {e}");
        }
    }
}
