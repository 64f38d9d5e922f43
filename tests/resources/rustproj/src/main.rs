use rustproj::model::Item;
use rustproj::run;

fn main() {
    let item = Item::new("pear", 1);
    println!("{} {}", item.name, run());
}
