//! The `zwang` binary: the command line of [`zwang_cli`].

fn main() {
    std::process::exit(zwang_cli::run(std::env::args_os()))
}
