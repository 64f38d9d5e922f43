"""Java receivers whose type is declared: fields (bare and through `this.`),
locals, `var` by its value, parameters."""

from __future__ import annotations

from pathlib import Path

from cartog_ci import graph
from cartog_ci.store.sqlite import SqliteStore
from tests.testing.exact_sets import graph_of
from tests.testing.fixtures import commit, index, init_repo, write


def test_java_receivers_whose_type_is_declared(tmp_path: Path) -> None:
    graph = graph_of(tmp_path, {
        "src/main/java/b/Stats.java": "package b;\n\npublic class Stats {\n  public void inc() {}\n}\n",
        "src/main/java/a/Crawler.java": (
            "package a;\n\n"
            "import b.Stats;\nimport java.util.ArrayList;\nimport java.util.List;\n\n"
            "public class Crawler {\n"
            "  private Stats stats;\n"
            "  private final Stats other = new Stats();\n\n"
            "  public void run(Stats given) {\n"
            "    Stats local = given;\n"
            "    var inferred = new Stats();\n"
            "    stats.inc();\n"
            "    this.stats.inc();\n"
            "    other.inc();\n"
            "    given.inc();\n"
            "    local.inc();\n"
            "    inferred.inc();\n"
            "    List<Stats> all = new ArrayList<>();\n"
            "    all.add(null);\n"
            "  }\n"
            "}\n"
        ),
    })  # fmt: skip
    edges = graph["edges"]
    assert isinstance(edges, list)
    inc = "src/main/java/b/Stats.java:method:Stats.inc"
    lines = {e["line"]: (e["target_id"], e["resolution"]) for e in edges if e["target_name"] in ("inc", "add")}
    assert lines == {14: (inc, "import"), 15: (inc, "import"), 16: (inc, "import"), 17: (inc, "import"),
                     18: (inc, "import"), 19: (inc, "import"), 21: (None, "external")}  # fmt: skip


def test_callers_of_an_interface_method_reach_its_implementations(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo")
    write(repo, {
        "src/main/java/a/Repo.java": "package a;\n\npublic interface Repo {\n  void save();\n}\n",
        "src/main/java/a/SqlRepo.java": "package a;\n\npublic class SqlRepo implements Repo {\n  public void save() {}\n}\n",
        "src/main/java/a/Other.java": "package a;\n\npublic class Other {\n  public void save() {}\n}\n",
        "src/main/java/a/Service.java": (
            "package a;\n\npublic class Service {\n  void run(Repo repo) {\n    repo.save();\n  }\n}\n"
        ),
    })  # fmt: skip
    commit(repo)
    index(repo)
    with SqliteStore(repo / ".cartog-ci" / "index.db") as db:
        sql = graph.impact(db, ["src/main/java/a/SqlRepo.java:method:SqlRepo.save"], depth=2)
        other = graph.impact(db, ["src/main/java/a/Other.java:method:Other.save"], depth=2)
    assert [(n.symbol.id, n.via) for n in sql] == [("src/main/java/a/Service.java:method:Service.run", "interface")]
    assert other == []


def test_a_cast_receiver(tmp_path: Path) -> None:
    graph = graph_of(tmp_path, {
        "src/main/java/a/Repo.java": "package a;\n\npublic class Repo {\n  public void save() {}\n}\n",
        "src/main/java/a/Use.java": "package a;\n\npublic class Use {\n  void m(Object x) {\n    ((Repo) x).save();\n  }\n}\n",
    })  # fmt: skip
    edges = graph["edges"]
    assert isinstance(edges, list)
    assert {(e["target_id"], e["resolution"]) for e in edges if e["target_name"] == "save"} == {
        ("src/main/java/a/Repo.java:method:Repo.save", "same_dir")
    }
