//! Command-line interface (thin: parsing and dispatch; the work lives in the library).

pub mod anim;
pub mod cmdl;
pub mod pak_txtr;
pub mod render;
pub mod source;
pub mod tev;
pub mod vertex;

use std::process::ExitCode;

pub fn main() -> ExitCode {
    ExitCode::SUCCESS
}
