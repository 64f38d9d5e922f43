/// Another package's `Weight`: never a guess for rustproj's.
type Weight = u64;

fn main() {
    let w: Weight = 1;
    println!("{}", w);
}
