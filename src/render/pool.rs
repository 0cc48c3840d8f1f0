//! Renderers kept for reuse. Making one — finding the adapter, opening its device, compiling the
//! pipelines — costs about a quarter of a second on lavapipe, more than drawing a small frame;
//! a command that renders many scenes (`simreel render scenes/*.toml`, a golden check) draws
//! each on a renderer of its adapter, size and samples made once. A renderer keeps nothing of one
//! frame for the next but GPU copies of what the frame names by content (meshes, placements),
//! so a reused one draws the same pixels as a new one.

use super::{AdapterRequest, RenderError, Renderer};

/// What a renderer is made for.
type Key = (AdapterRequest, u32, u32, u32);

/// The renderers made so far, the most recently used last.
pub struct Pool {
    keep: usize,
    renderers: Vec<(Key, Renderer)>,
}

impl Pool {
    /// A pool that keeps at most `keep` renderers (at least one).
    pub fn new(keep: usize) -> Self {
        Pool { keep: keep.max(1), renderers: Vec::new() }
    }

    /// A renderer on the adapter `request` picks, for frames of `width` × `height` with
    /// `samples` samples a pixel: one made earlier, or a new one (the least recently used goes
    /// when the pool is full).
    pub fn get(&mut self, request: &AdapterRequest, width: u32, height: u32, samples: u32) -> Result<&mut Renderer, RenderError> {
        let key = (request.clone(), width, height, samples);
        match self.renderers.iter().position(|(k, _)| *k == key) {
            Some(i) => {
                let r = self.renderers.remove(i);
                self.renderers.push(r);
            }
            None => {
                let r = Renderer::new(request, width, height, samples)?;
                if self.renderers.len() >= self.keep {
                    self.renderers.remove(0);
                }
                self.renderers.push((key, r));
            }
        }
        Ok(&mut self.renderers.last_mut().expect("a renderer").1)
    }

    /// How many renderers it holds.
    pub fn len(&self) -> usize {
        self.renderers.len()
    }

    pub fn is_empty(&self) -> bool {
        self.renderers.is_empty()
    }
}

impl Default for Pool {
    /// Two renderers: a command's scenes at one size, and the odd one out.
    fn default() -> Self {
        Pool::new(2)
    }
}
