//! What kind of failure an error is, as the `simreel` command's exit code says it (the table in
//! `docs/rendering.md`): each error type of the library names its own class, and the command
//! takes the first class found along an error's chain.

/// The classes of failure, each with its exit code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExitClass {
    /// 1: something failed while running (a file could not be written, a bug).
    Runtime,
    /// 2: the input (a scene, a flag, a file read back) makes no sense.
    BadInput,
    /// 3: no GPU or software adapter, or the one asked for is missing or was lost.
    NoAdapter,
    /// 4: golden checks or compared pictures did not match.
    Mismatch,
    /// 130: stopped by Ctrl-C (what was finished is kept).
    Interrupted,
}

impl ExitClass {
    pub fn code(self) -> u8 {
        match self {
            ExitClass::Runtime => 1,
            ExitClass::BadInput => 2,
            ExitClass::NoAdapter => 3,
            ExitClass::Mismatch => 4,
            ExitClass::Interrupted => 130,
        }
    }
}

/// A value given to a command that makes no sense for what it is applied to (exit 2).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct BadInput(pub String);

impl BadInput {
    pub fn exit_class(&self) -> ExitClass {
        ExitClass::BadInput
    }
}
