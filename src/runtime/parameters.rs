//! State machine parameters and the conditions that test them.
//!
//! Parameters are typed (bool, int, float, trigger) and start unset unless their definition
//! gives a default. A condition on a parameter that was never set is false, whatever its
//! operator. A trigger is a bool that the transition it fires consumes (resets). Floats compare
//! equal within [`FLOAT_EQUALITY`].

use super::RuntimeError;

/// Most parameters one state machine may declare (they are stored inline in each entity's
/// [`crate::runtime::StateMachine`], so that reading them costs no pointer chase).
pub const MAX_PARAMETERS: usize = 16;

/// Two floats within this distance are equal for `==` and `!=` conditions.
pub const FLOAT_EQUALITY: f32 = 1e-3;

/// The type of a parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ParameterKind {
    /// `true` or `false`.
    Bool,
    /// A 32-bit signed integer.
    Int,
    /// A 32-bit float.
    Float,
    /// Set by a call, consumed by the transition it fires.
    Trigger,
}

impl ParameterKind {
    /// The kind's name, as written in definitions.
    pub fn name(self) -> &'static str {
        match self {
            Self::Bool => "bool",
            Self::Int => "int",
            Self::Float => "float",
            Self::Trigger => "trigger",
        }
    }
}

/// A parameter value as written in definitions and saved files: a JSON `true`, `3` or `0.5`.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(untagged)]
pub enum Value {
    /// A bool (also a trigger's state).
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A float.
    Float(f64),
}

impl Value {
    fn describe(&self) -> String {
        match self {
            Self::Bool(b) => format!("bool {b}"),
            Self::Int(i) => format!("int {i}"),
            Self::Float(x) => format!("float {x}"),
        }
    }
}

/// A declared parameter.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ParameterDef {
    /// Its name, unique in the state machine.
    pub name: String,
    /// Its type.
    pub kind: ParameterKind,
    /// Its value before anything sets it; unset when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Value>,
}

/// A parameter of one state machine, by position (from
/// [`crate::runtime::Animator::parameter`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ParamId(pub(crate) u16);

/// How a condition compares a parameter with its value.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum Compare {
    /// Equal (floats within [`FLOAT_EQUALITY`]).
    #[default]
    #[serde(rename = "==")]
    Eq,
    /// Not equal (floats further apart than [`FLOAT_EQUALITY`]).
    #[serde(rename = "!=")]
    Ne,
    /// Greater than.
    #[serde(rename = ">")]
    Gt,
    /// Greater than or equal.
    #[serde(rename = ">=")]
    Ge,
    /// Less than.
    #[serde(rename = "<")]
    Lt,
    /// Less than or equal.
    #[serde(rename = "<=")]
    Le,
}

/// One test of a transition: `parameter op value`, or, for a trigger, "is set" (no `op`, no
/// `value`). All conditions of a transition must hold for it to fire.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Condition {
    /// The parameter tested.
    pub parameter: String,
    /// The comparison (ignored for triggers).
    #[serde(default)]
    pub op: Compare,
    /// What the parameter is compared with (absent for triggers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<Value>,
}

impl Condition {
    /// `parameter op value`.
    pub fn new(parameter: &str, op: Compare, value: Value) -> Self {
        Self {
            parameter: parameter.to_string(),
            op,
            value: Some(value),
        }
    }

    /// Trigger `parameter` is set.
    pub fn trigger(parameter: &str) -> Self {
        Self {
            parameter: parameter.to_string(),
            op: Compare::Eq,
            value: None,
        }
    }
}

/// A condition resolved against a parameter list: what the runtime evaluates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct CompiledCondition {
    param: u16,
    test: Test,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Test {
    Bool { op: Compare, value: bool },
    Int { op: Compare, value: i64 },
    Float { op: Compare, value: f32 },
    Trigger,
}

impl CompiledCondition {
    /// Resolves `condition` against `defs`; `machine` names the state machine in errors.
    pub(crate) fn compile(
        condition: &Condition,
        defs: &[ParameterDef],
        machine: &str,
    ) -> Result<Self, RuntimeError> {
        let index = defs
            .iter()
            .position(|d| d.name == condition.parameter)
            .ok_or_else(|| RuntimeError::UnknownParameter {
                machine: machine.to_string(),
                parameter: condition.parameter.clone(),
            })?;
        let kind = defs[index].kind;
        let mismatch = |found: String| RuntimeError::ParameterType {
            parameter: condition.parameter.clone(),
            expected: kind.name(),
            found,
        };
        let op = condition.op;
        let test = match (kind, condition.value) {
            (ParameterKind::Trigger, None) => Test::Trigger,
            (ParameterKind::Trigger, Some(v)) => return Err(mismatch(v.describe())),
            (_, None) => return Err(mismatch("no value".to_string())),
            (ParameterKind::Bool, Some(Value::Bool(value))) => match op {
                Compare::Eq | Compare::Ne => Test::Bool { op, value },
                _ => return Err(mismatch(format!("bool compared with {op:?}"))),
            },
            (ParameterKind::Int, Some(Value::Int(value))) => Test::Int { op, value },
            (ParameterKind::Float, Some(Value::Float(value))) => Test::Float {
                op,
                value: value as f32,
            },
            (ParameterKind::Float, Some(Value::Int(value))) => Test::Float {
                op,
                value: value as f32,
            },
            (_, Some(v)) => return Err(mismatch(v.describe())),
        };
        Ok(Self {
            param: index as u16,
            test,
        })
    }

    /// Whether the condition holds for `params`; false when the parameter is unset.
    #[inline]
    pub(crate) fn holds(&self, params: &Parameters) -> bool {
        let Some(bits) = params.bits(self.param) else {
            return false;
        };
        match self.test {
            Test::Trigger => true,
            Test::Bool { op, value } => (bits != 0) == (value ^ (op == Compare::Ne)),
            Test::Int { op, value } => compare(op, i64::from(bits as i32), value),
            Test::Float { op, value } => {
                let x = f32::from_bits(bits);
                match op {
                    Compare::Eq => (x - value).abs() <= FLOAT_EQUALITY,
                    Compare::Ne => (x - value).abs() > FLOAT_EQUALITY,
                    _ => compare(op, x, value),
                }
            }
        }
    }

    /// The trigger this condition consumes when its transition fires.
    #[inline]
    pub(crate) fn trigger(&self) -> Option<u16> {
        matches!(self.test, Test::Trigger).then_some(self.param)
    }
}

#[inline]
fn compare<T: PartialOrd>(op: Compare, a: T, b: T) -> bool {
    match op {
        Compare::Eq => a == b,
        Compare::Ne => a != b,
        Compare::Gt => a > b,
        Compare::Ge => a >= b,
        Compare::Lt => a < b,
        Compare::Le => a <= b,
    }
}

/// The parameter values of one state machine instance, stored inline and compactly (what a
/// frame reads — the set flags and the first values — shares one cache line).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Parameters {
    /// Bit `i`: parameter `i` is set.
    set: u16,
    #[serde(deserialize_with = "super::snapshot::at_most::<_, _, MAX_PARAMETERS>")]
    len: u8,
    kinds: [ParameterKind; MAX_PARAMETERS],
    /// Value bits: `bool` as 0/1, `i32` and `f32` bit patterns.
    values: [u32; MAX_PARAMETERS],
}

const _: () = assert!(MAX_PARAMETERS <= 16, "`Parameters::set` is a u16 bit set");

impl Parameters {
    /// Parameters for `defs` (at most [`MAX_PARAMETERS`]), at their defaults. Defaults must have
    /// been validated ([`Parameters::validate`]).
    pub(crate) fn new(defs: &[ParameterDef]) -> Self {
        let mut out = Self {
            set: 0,
            len: defs.len().min(MAX_PARAMETERS) as u8,
            kinds: [ParameterKind::Bool; MAX_PARAMETERS],
            values: [0; MAX_PARAMETERS],
        };
        for (i, def) in defs.iter().take(MAX_PARAMETERS).enumerate() {
            out.kinds[i] = def.kind;
            if let Some(v) = def.default {
                // Validated: the default matches the kind.
                let _ = out.write(i, v);
            }
        }
        out
    }

    /// Checks a parameter list: unique names, at most [`MAX_PARAMETERS`], defaults of the right
    /// type.
    pub(crate) fn validate(defs: &[ParameterDef], machine: &str) -> Result<(), RuntimeError> {
        if defs.len() > MAX_PARAMETERS {
            return Err(RuntimeError::TooManyParameters {
                machine: machine.to_string(),
                count: defs.len(),
            });
        }
        for (i, def) in defs.iter().enumerate() {
            if defs[..i].iter().any(|d| d.name == def.name) {
                return Err(RuntimeError::DuplicateName {
                    what: "parameter",
                    name: def.name.clone(),
                });
            }
            if let Some(v) = def.default {
                let mut probe = Self::new(&[]);
                probe.len = 1;
                probe.kinds[0] = def.kind;
                probe
                    .write(0, v)
                    .map_err(|found| RuntimeError::ParameterType {
                        parameter: def.name.clone(),
                        expected: def.kind.name(),
                        found,
                    })?;
            }
        }
        Ok(())
    }

    /// Number of parameters.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The kind of parameter `id`, if it exists.
    pub fn kind(&self, id: ParamId) -> Option<ParameterKind> {
        self.kinds[..self.len()].get(id.0 as usize).copied()
    }

    /// The value of parameter `id`; `None` when unset (or when `id` is out of range). A set
    /// trigger reads as `Bool(true)`.
    pub fn get(&self, id: ParamId) -> Option<Value> {
        let kind = self.kind(id)?;
        let bits = self.bits(id.0)?;
        Some(match kind {
            ParameterKind::Bool | ParameterKind::Trigger => Value::Bool(bits != 0),
            ParameterKind::Int => Value::Int(i64::from(bits as i32)),
            // Through the f32's shortest decimal form, so 1.2 reads (and saves) as 1.2.
            ParameterKind::Float => {
                let x = f32::from_bits(bits);
                Value::Float(x.to_string().parse().unwrap_or(f64::from(x)))
            }
        })
    }

    /// Sets parameter `id` to `value`, which must match its kind (an int may set a float; a
    /// trigger takes `Bool`). NaN floats are refused.
    pub fn set(&mut self, id: ParamId, value: Value) -> Result<(), RuntimeError> {
        let index = id.0 as usize;
        if index >= self.len() {
            return Err(RuntimeError::UnknownParameter {
                machine: String::new(),
                parameter: format!("#{index}"),
            });
        }
        self.write(index, value)
            .map_err(|found| RuntimeError::ParameterType {
                parameter: format!("#{index}"),
                expected: self.kinds[index].name(),
                found,
            })
    }

    /// Sets a float parameter.
    pub fn set_float(&mut self, id: ParamId, value: f32) -> Result<(), RuntimeError> {
        self.set(id, Value::Float(f64::from(value)))
    }

    /// Sets an int parameter.
    pub fn set_int(&mut self, id: ParamId, value: i32) -> Result<(), RuntimeError> {
        self.set(id, Value::Int(i64::from(value)))
    }

    /// Sets a bool parameter.
    pub fn set_bool(&mut self, id: ParamId, value: bool) -> Result<(), RuntimeError> {
        self.set(id, Value::Bool(value))
    }

    /// Sets a trigger (it stays set until a transition consumes it, or [`Parameters::unset`]).
    pub fn trigger(&mut self, id: ParamId) -> Result<(), RuntimeError> {
        self.set(id, Value::Bool(true))
    }

    /// Makes parameter `id` unset again (conditions on it become false).
    pub fn unset(&mut self, id: ParamId) {
        self.consume(id.0);
    }

    /// Value of a float (or int) parameter, 0 when unset or of another kind (blend inputs).
    #[inline]
    pub(crate) fn float_or_zero(&self, index: u16) -> f32 {
        match (self.kinds.get(index as usize), self.bits(index)) {
            (Some(ParameterKind::Float), Some(bits)) => f32::from_bits(bits),
            (Some(ParameterKind::Int), Some(bits)) => bits as i32 as f32,
            _ => 0.0,
        }
    }

    /// Makes parameter `index` unset (a trigger consumed by a transition).
    #[inline]
    pub(crate) fn consume(&mut self, index: u16) {
        if (index as usize) < self.len() {
            self.set &= !(1 << index);
        }
    }

    /// The value bits of parameter `index`, if it is set.
    #[inline]
    fn bits(&self, index: u16) -> Option<u32> {
        let i = index as usize;
        (i < self.len() && self.set & (1 << i) != 0).then(|| self.values[i])
    }

    /// Writes `value` into parameter `index`, or says what was wrong with it.
    fn write(&mut self, index: usize, value: Value) -> Result<(), String> {
        let kind = self.kinds[index];
        let bits = match (kind, value) {
            (ParameterKind::Bool | ParameterKind::Trigger, Value::Bool(b)) => u32::from(b),
            (ParameterKind::Int, Value::Int(i)) => match i32::try_from(i) {
                Ok(i) => i as u32,
                Err(_) => return Err(format!("int {i} (out of 32-bit range)")),
            },
            (ParameterKind::Float, Value::Float(x)) if !x.is_nan() => (x as f32).to_bits(),
            (ParameterKind::Float, Value::Int(i)) => (i as f32).to_bits(),
            (_, v) => return Err(v.describe()),
        };
        // A trigger set to false is simply not set.
        if kind == ParameterKind::Trigger && bits == 0 {
            self.set &= !(1 << index);
        } else {
            self.set |= 1 << index;
        }
        self.values[index] = bits;
        Ok(())
    }
}
