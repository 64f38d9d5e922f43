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


def _calls(graph: dict[str, object]) -> set[tuple[str, int, str, str | None, str | None]]:
    edges = graph["edges"]
    assert isinstance(edges, list)
    return {
        (e["file"], e["line"], e["target_name"], e["target_id"], e["resolution"]) for e in edges if e["kind"] == "calls"
    }


def test_outer_parameters_in_an_anonymous_class_and_for_each_variables(tmp_path: Path) -> None:
    # react-native ReactAndroid: `callback.onFailure(cause)` inside `new
    # Callback() {...}` of a method taking `final Callback callback`, and
    # `for (ImageSource source : sources) source.getUri()`. Decoys with the
    # same method names keep a name-only guess from hiding the typing.
    graph = graph_of(tmp_path, {
        "src/main/java/a/Callback.java": "package a;\n\npublic interface Callback {\n  void onFailure(String c);\n}\n",
        "src/main/java/a/Source.java": (
            "package a;\n\npublic class Source {\n  public String getUri() { return null; }\n}\n"
        ),
        "src/main/java/a/Decoy.java": (
            "package a;\n\npublic class Decoy {\n"
            "  public void onFailure(String c) {}\n  public String getUri() { return null; }\n}\n"
        ),
        "src/main/java/a/Exec.java": (
            "package a;\n\nimport java.util.List;\n\n"
            "public class Exec {\n"
            "  void connect(final Callback callback, List<Source> sources, List<String> names) {\n"
            "    Runnable r = new Runnable() {\n"
            "      public void run() {\n"
            "        callback.onFailure(\"x\");\n"
            "      }\n"
            "    };\n"
            "    for (Source source : sources) {\n"
            "      source.getUri();\n"
            "    }\n"
            "    for (String name : names) {\n"
            "      name.getUri();\n"
            "    }\n"
            "  }\n"
            "}\n"
        ),
    })  # fmt: skip
    assert _calls(graph) == {
        ("src/main/java/a/Exec.java", 7, "Runnable", None, "external"),
        ("src/main/java/a/Exec.java", 9, "onFailure", "src/main/java/a/Callback.java:method:Callback.onFailure", "same_dir"),
        ("src/main/java/a/Exec.java", 13, "getUri", "src/main/java/a/Source.java:method:Source.getUri", "same_dir"),
        ("src/main/java/a/Exec.java", 16, "getUri", None, "external"),
    }  # fmt: skip


def test_a_type_parameter_bounded_by_a_project_class(tmp_path: Path) -> None:
    # react-native: `class ReactClippingViewManager<T extends ReactViewGroup>`
    # with `view.setRemoveClippedSubviews(..)` on a `T view` parameter; a
    # method's own `<V extends Source>`; an outside bound (`T extends View`)
    # makes the call external. The bound is a promise, so its own tier.
    graph = graph_of(tmp_path, {
        "src/main/java/a/Group.java": "package a;\n\npublic class Group {\n  public void clip(boolean b) {}\n}\n",
        "src/main/java/a/Source.java": (
            "package a;\n\npublic class Source {\n  public String getUri() { return null; }\n}\n"
        ),
        "src/main/java/a/Decoy.java": (
            "package a;\n\npublic class Decoy {\n"
            "  public void clip(boolean b) {}\n  public String getUri() { return null; }\n}\n"
        ),
        "src/main/java/a/Manager.java": (
            "package a;\n\n"
            "import android.view.View;\n\n"
            "public abstract class Manager<T extends Group, W extends View> {\n"
            "  public void set(T view, W other, boolean b) {\n"
            "    view.clip(b);\n"
            "    other.clip(b);\n"
            "  }\n\n"
            "  public <V extends Source> void m(V v) {\n"
            "    v.getUri();\n"
            "  }\n"
            "}\n"
        ),
    })  # fmt: skip
    assert _calls(graph) == {
        ("src/main/java/a/Manager.java", 7, "clip", "src/main/java/a/Group.java:method:Group.clip", "bound"),
        ("src/main/java/a/Manager.java", 8, "clip", None, "external"),
        ("src/main/java/a/Manager.java", 12, "getUri", "src/main/java/a/Source.java:method:Source.getUri", "bound"),
    }


def test_an_imported_nested_class_and_an_intersection_bound(tmp_path: Path) -> None:
    # react-native: `import com.facebook.react.uimanager.TouchTargetHelper.ViewTarget;`
    # then `for (ViewTarget t : targets) t.getViewId()` (the nested class was
    # taken for an outside one); `<T extends ViewGroup & HasScrollState>` has
    # no single type: a call on a `T` is not made external by `ViewGroup`, it
    # is left to the name guess (here the project's only `getState`)
    graph = graph_of(tmp_path, {
        "src/main/java/a/ui/Helper.java": (
            "package a.ui;\n\npublic class Helper {\n"
            "  public static class ViewTarget {\n    public int getViewId() { return 0; }\n  }\n}\n"
        ),
        "src/main/java/a/ui/Decoy.java": "package a.ui;\n\npublic class Decoy {\n  public int getViewId() { return 1; }\n}\n",
        "src/main/java/a/ui/HasState.java": "package a.ui;\n\npublic interface HasState {\n  int getState();\n}\n",
        "src/main/java/a/app/Dispatcher.java": (
            "package a.app;\n\n"
            "import a.ui.Helper.ViewTarget;\n"
            "import a.ui.HasState;\n"
            "import android.view.ViewGroup;\n"
            "import java.util.List;\n\n"
            "public class Dispatcher {\n"
            "  void dispatch(List<ViewTarget> targets) {\n"
            "    for (ViewTarget t : targets) {\n"
            "      t.getViewId();\n"
            "    }\n"
            "  }\n\n"
            "  static <T extends ViewGroup & HasState> void emit(T view) {\n"
            "    view.getState();\n"
            "  }\n"
            "}\n"
        ),
    })  # fmt: skip
    assert _calls(graph) == {
        ("src/main/java/a/app/Dispatcher.java", 11, "getViewId", "src/main/java/a/ui/Helper.java:method:Helper.ViewTarget.getViewId", "import"),
        ("src/main/java/a/app/Dispatcher.java", 16, "getState", "src/main/java/a/ui/HasState.java:method:HasState.getState", "unique"),
    }  # fmt: skip
    edges = graph["edges"]
    assert isinstance(edges, list)
    assert {(e["target_id"], e["resolution"]) for e in edges if e["kind"] == "imports" and e["target_name"] == "Helper.ViewTarget"} == {
        ("src/main/java/a/ui/Helper.java:class:Helper.ViewTarget", "import")
    }  # fmt: skip
