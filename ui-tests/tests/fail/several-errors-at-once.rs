use cy_tools::tool;

#[tool(capabilities(envv), read_onyl)]
fn read_file(path: &str, (a, b): (u8, u8)) -> String {
    format!("{path}{a}{b}")
}

fn main() {}
