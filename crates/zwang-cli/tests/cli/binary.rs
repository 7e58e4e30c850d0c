//! The `zwang` binary itself runs. (The command line is tested in depth by
//! the other files here.)

use std::process::Command;

#[test]
fn the_binary_prints_its_version_and_the_demonstration() {
    let zwang = env!("CARGO_BIN_EXE_zwang");
    let version = Command::new(zwang).arg("--version").output().unwrap();
    assert_eq!(version.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&version.stdout).starts_with("zwang "));
    let demo = Command::new(zwang).output().unwrap();
    assert_eq!(demo.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&demo.stdout).contains("zwang --help"));
}
