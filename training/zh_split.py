"""Writes the clean zh->en test split (training/zoo-next/testsets/zh-en.zh and zh-en.en, one
sentence per line, 1,000 distinct Chinese sources with one reference each) and checks that no
Chinese source sentence (NFKC, stripped) is in two of train / valid / test.

    /usr/bin/python3 training/zh_split.py [OUT_DIR]
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attention_lens import data  # noqa: E402


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(data.HERE, "zoo-next", "testsets")
    c = data.load_pair("zh-en")  # split_zh asserts the splits are disjoint
    keys = {name: {data.zh_key(s) for s, _ in pairs} for name, pairs in c.items()}
    assert not keys["train"] & keys["val"] and not keys["train"] & keys["test"] and not keys["val"] & keys["test"]
    assert len(keys["test"]) == len(c["test"]) == data.ZH_TEST, "one pair per distinct test source"
    os.makedirs(out, exist_ok=True)
    for side, col in (("zh", 0), ("en", 1)):
        with open(os.path.join(out, f"zh-en.{side}"), "w", encoding="utf-8") as f:
            for p in c["test"]:
                assert "\n" not in p[col]
                f.write(p[col] + "\n")
    print(f"train {len(c['train'])} pairs / {len(keys['train'])} sources; val {len(c['val'])} / "
          f"{len(keys['val'])}; test {len(c['test'])} / {len(keys['test'])}: disjoint; wrote {out}/zh-en.{{zh,en}}")


if __name__ == "__main__":
    main()
