//! A small assembler for classic BPF, the language of seccomp filters: instructions whose
//! jumps name labels, laid out and resolved to the byte offsets the kernel wants at the end,
//! with each distinct return written once. Written here because the filter is short and a
//! library that compiles filters would be a heavy dependency for it.

// Classic BPF opcodes.
pub(super) const LD_W_ABS: u16 = 0x20;
pub(super) const JMP_JEQ_K: u16 = 0x15;
pub(super) const JMP_JGE_K: u16 = 0x35;
pub(super) const JMP_JSET_K: u16 = 0x45;
pub(super) const RET_K: u16 = 0x06;

/// A place in the program that jumps name before it is laid out.
pub(super) type Label = usize;

/// A program whose forward jumps go to labels, resolved to offsets by [`Asm::finish`].
#[derive(Default)]
pub(super) struct Asm {
    /// Each instruction, with its jumps' labels (`None`: a statement).
    code: Vec<(libc::sock_filter, Option<(Label, Label)>)>,
    /// Where each label was placed (an instruction index).
    places: Vec<Option<usize>>,
    /// The label of each shared return, by return value.
    returns: Vec<(u32, Label)>,
}

impl Asm {
    /// A new label, placed later with [`Asm::place`].
    pub(super) fn label(&mut self) -> Label {
        self.places.push(None);
        self.places.len() - 1
    }

    /// Places `label` at the next instruction.
    pub(super) fn place(&mut self, label: Label) {
        self.places[label] = Some(self.code.len());
    }

    /// Appends an instruction that does not jump.
    pub(super) fn stmt(&mut self, code: u16, k: u32) {
        let ins = libc::sock_filter {
            code,
            jt: 0,
            jf: 0,
            k,
        };
        self.code.push((ins, None));
    }

    /// Appends a conditional jump: to `jt` when the test holds, else to `jf`; both labels must be
    /// placed after it.
    pub(super) fn jump(&mut self, code: u16, k: u32, jt: Label, jf: Label) {
        let ins = libc::sock_filter {
            code,
            jt: 0,
            jf: 0,
            k,
        };
        self.code.push((ins, Some((jt, jf))));
    }

    /// The label of the one shared `RET value`, laid out by [`Asm::finish`].
    pub(super) fn ret(&mut self, value: u32) -> Label {
        if let Some(&(_, label)) = self.returns.iter().find(|(v, _)| *v == value) {
            return label;
        }
        let label = self.label();
        self.returns.push((value, label));
        label
    }

    /// The program: the shared returns last, every jump resolved. Each jump goes forward, and
    /// the program is far shorter than the 255 instructions a jump can span (a test checks).
    pub(super) fn finish(mut self) -> Vec<libc::sock_filter> {
        for (value, label) in std::mem::take(&mut self.returns) {
            self.place(label);
            self.stmt(RET_K, value);
        }
        let places = &self.places;
        let offset = |from: usize, label: Label| {
            let to = places[label].expect("every label is placed");
            u8::try_from(to - from - 1).expect("a forward jump shorter than 256 instructions")
        };
        self.code
            .iter()
            .enumerate()
            .map(|(i, &(mut ins, jumps))| {
                if let Some((jt, jf)) = jumps {
                    ins.jt = offset(i, jt);
                    ins.jf = offset(i, jf);
                }
                ins
            })
            .collect()
    }
}
