"""The recorder's mirror of the run-directory vocabulary against the core's one
definition, as tests/tools/record_vocabulary.cpp prints it from the C++ field lists:
every constant of python/ampscope/schema.py equals the core's, and the records of a
real recorded run (every record type the recorder writes, summary.json and config.json)
hold only keys the core's field lists know (or schema.RECORDED_RUN_KEYS declares) and
every key the core's readers require."""
import json
import math
import os
import subprocess
import tempfile
import unittest

from ampscope import schema
from support import events, spiral_mlp, train

VOCABULARY = os.environ.get("AMPSCOPE_RECORD_VOCABULARY", "")
NONFINITE_SUFFIX = "_nonfinite"


def core_vocabulary():
    result = subprocess.run([VOCABULARY], capture_output=True, text=True, timeout=120)
    if result.returncode != 0:
        raise AssertionError(f"record_vocabulary failed: {result.stderr}")
    return json.loads(result.stdout)


def unknown_keys(record, keys, extras, where):
    """Paths of the keys in `record` that neither the core's `keys` nor `extras` list."""
    found = []
    for key, value in record.items():
        spec = keys.get(key)
        if spec is None:
            number = keys.get(key[:-len(NONFINITE_SUFFIX)], {}) if key.endswith(NONFINITE_SUFFIX) else {}
            if not number.get("nonfinite") and key not in extras.get(where, ()):
                found.append(f"{where}.{key}")
            continue
        nested = spec.get("fields")
        if nested is None:
            continue
        for entry in value if isinstance(value, list) else [value]:
            if isinstance(entry, dict):
                found += unknown_keys(entry, nested, extras, f"{where}.{key}")
    return found


def missing_required(record, keys, where):
    """Paths of the keys the core's readers require that `record` lacks."""
    found = []
    for key, spec in keys.items():
        if key not in record:
            if spec["read"] == "required":
                found.append(f"{where}.{key}")
            continue
        nested = spec.get("fields")
        value = record[key]
        for entry in (value if isinstance(value, list) else [value]) if nested else []:
            if isinstance(entry, dict):
                found += missing_required(entry, nested, f"{where}.{key}")
    return found


class ConstantsMirrorTheCore(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not VOCABULARY:
            raise unittest.SkipTest("AMPSCOPE_RECORD_VOCABULARY not set (run through ctest)")
        cls.core = core_vocabulary()

    def test_every_mirrored_constant_equals_the_cores(self):
        for name, value in self.core["constants"].items():
            with self.subTest(name=name):
                self.assertTrue(hasattr(schema, name), f"schema.py lacks {name}")
                mirrored = getattr(schema, name)
                self.assertEqual(list(mirrored) if isinstance(mirrored, tuple) else mirrored, value)

    def test_schema_holds_no_name_the_core_does_not_define(self):
        names = {name for name in vars(schema) if name.isupper()}
        self.assertEqual(names - set(self.core["constants"]) - {"RECORDED_RUN_KEYS"}, set())

    def test_the_recorders_record_types_are_types_the_core_reads(self):
        written = [schema.RUN_START, schema.RUN_INFO, schema.STEP, schema.EPOCH, schema.ERROR,
                   schema.RUN_END, schema.HISTOGRAM, schema.UNDERFLOW, schema.NONFINITE,
                   schema.UPDATE_RATIO, schema.MEMORY]
        for record_type in written:
            self.assertIn(record_type, self.core["record_types"])
            self.assertIn(record_type, self.core["records"])

    def test_recorded_run_keys_are_keys_the_core_does_not_list(self):
        # A key the core lists now needs no declaration: the declaration would hide a drift.
        for where, extra in schema.RECORDED_RUN_KEYS.items():
            record, nested = (where, "") if where in self.core["records"] else where.rsplit(".", 1)
            keys = self.core["records"][record]
            if nested:
                keys = keys[nested]["fields"]
            for key in extra:
                self.assertNotIn(key, keys, f"{where}.{key} is the core's now")


class RecordedRunMatchesTheFieldLists(unittest.TestCase):
    """One recorded run that writes every record type the recorder has: probe steps, a
    NaN the checks locate, an epoch end, and an exception that ends the run as an error."""

    @classmethod
    def setUpClass(cls):
        if not VOCABULARY:
            raise unittest.SkipTest("AMPSCOPE_RECORD_VOCABULARY not set (run through ctest)")
        cls.core = core_vocabulary()
        cls.folder = tempfile.TemporaryDirectory(prefix="ampscope-py-")
        cls.run_dir = os.path.join(cls.folder.name, "every-record")
        model = spiral_mlp()
        current = {"step": 0}

        def nan_at_step_7(module, args, output):
            if current["step"] != 7:
                return output
            output = output.clone()
            output[0, 0] = math.nan
            return output

        def before(step, _):
            current["step"] = step
            if step == 9:
                raise RuntimeError("the loop fails here")

        def after(step, rec):
            if step == 4:
                rec.end_epoch(val_loss=0.5, val_accuracy=0.75)

        model[2].register_forward_hook(nan_at_step_7)
        try:
            train(cls.run_dir, steps=10, probe_every=5, model=model, before_step=before, after_step=after)
        except RuntimeError:
            pass
        else:
            raise AssertionError("the loop was to fail at step 9")
        cls.records = events(cls.run_dir)
        with open(os.path.join(cls.run_dir, schema.SUMMARY_FILE), encoding="utf-8") as handle:
            cls.summary = json.load(handle)
        with open(os.path.join(cls.run_dir, schema.CONFIG_FILE), encoding="utf-8") as handle:
            cls.config = json.load(handle)

    @classmethod
    def tearDownClass(cls):
        cls.folder.cleanup()

    def documents(self):
        """(where, document) for each record and file of the run."""
        return ([(r["type"], r) for r in self.records] +
                [(schema.SUMMARY_FILE, self.summary), (schema.CONFIG_FILE, self.config)])

    def test_the_run_has_every_record_type_the_recorder_writes(self):
        types = {r["type"] for r in self.records}
        self.assertEqual(types, {schema.RUN_START, schema.RUN_INFO, schema.STEP, schema.EPOCH,
                                 schema.ERROR, schema.RUN_END, schema.HISTOGRAM, schema.UNDERFLOW,
                                 schema.NONFINITE, schema.UPDATE_RATIO, schema.MEMORY})

    def test_every_key_written_is_one_the_core_knows(self):
        unknown = set()
        for where, document in self.documents():
            self.assertIn(where, self.core["records"], f"the core has no field list for {where}")
            unknown.update(unknown_keys(document, self.core["records"][where],
                                        schema.RECORDED_RUN_KEYS, where))
        self.assertEqual(sorted(unknown), [])

    def test_every_key_the_cores_readers_require_is_written(self):
        missing = set()
        for where, document in self.documents():
            missing.update(missing_required(document, self.core["records"][where], where))
        self.assertEqual(sorted(missing), [])

    def test_every_declared_recorded_run_key_is_written(self):
        # A declaration the recorder no longer needs would let the key come back unchecked.
        written = {}
        for where, document in self.documents():
            written.setdefault(where, set()).update(document)
            precision = document.get("precision")
            if isinstance(precision, dict):
                written.setdefault(where + ".precision", set()).update(precision)
        for where, extra in schema.RECORDED_RUN_KEYS.items():
            self.assertEqual(set(extra) - written.get(where, set()), set(), where)


if __name__ == "__main__":
    unittest.main()
