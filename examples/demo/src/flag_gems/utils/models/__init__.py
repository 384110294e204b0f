"""The tuner's persistent store, laid out as FlagGems' SQLPersistantModel lays it out.

FlagGems maps tables with SQLAlchemy; the demo writes the same SQLite schema with the
standard library: one table per (tuner table name, key column names), named
"<name>-<md5 of the concatenated column names>", with key_0.. columns then the config's
columns (BLOCK_M, ..., num_warps, num_ctas, num_stages) and, for benchmark tables,
p50/p20/p80. Winner tables have the key columns as primary key; benchmark tables the
key and config columns.
"""

import inspect
import sqlite3
import threading
from hashlib import md5

import triton

_SQL_TYPES = ((bool, "BOOLEAN"), (int, "BIGINT"), (float, "FLOAT"), (str, "VARCHAR"))


def _sql_type(v):
    t = v if isinstance(v, type) else type(v)
    for py, sql in _SQL_TYPES:
        if issubclass(t, py):
            return sql
    return "VARCHAR"


def _quote(name):
    return '"' + name.replace('"', '""') + '"'


class PersistantModel:
    signature = inspect.signature(triton.Config)

    def __init__(self):
        self.lock = threading.Lock()


class SQLPersistantModel(PersistantModel):
    def __init__(self, db_url):
        super().__init__()
        prefix = "sqlite:///"
        if not db_url.startswith(prefix):
            raise ValueError(f"demo tuner store supports sqlite URLs only, not '{db_url}'")
        self.path = db_url[len(prefix):]
        self._conn = None

    @property
    def conn(self):
        # Opened on first use, as SQLAlchemy's engine connects lazily.
        if self._conn is None:
            self._conn = sqlite3.connect(self.path, timeout=30, isolation_level=None)
            # A tuner cache can be rebuilt; skipping fsync keeps each insert cheap.
            self._conn.execute("PRAGMA synchronous=OFF")
        return self._conn

    @staticmethod
    def normalize_value(v):
        if isinstance(v, bool):
            return int(v)
        if isinstance(v, (int, float, str)):
            return v
        return str(v)

    @staticmethod
    def get_key_dict(keys):
        return {f"key_{i}": SQLPersistantModel.normalize_value(v) for i, v in enumerate(keys)}

    @staticmethod
    def get_config_dict(config):
        return {k: SQLPersistantModel.normalize_value(v)
                for k, v in config.all_kwargs().items()
                if isinstance(v, (int, float, str, bool))}

    @staticmethod
    def table_name(name, columns):
        return "{}-{}".format(name, md5("".join(columns).encode()).hexdigest())

    def _select(self, table, where):
        cond = " AND ".join(f"{_quote(k)} = ?" for k in where)
        try:
            cur = self.conn.execute(f"SELECT * FROM {_quote(table)} WHERE {cond}",
                                    tuple(where.values()))
        except sqlite3.OperationalError as e:
            if "no such table" in str(e):
                return None
            raise
        row = cur.fetchone()
        if row is None:
            return None
        return dict(zip((d[0] for d in cur.description), row))

    def _insert(self, table, primary, values):
        cols = {**primary, **values}
        defs = ", ".join(f"{_quote(k)} {_sql_type(v)} NOT NULL" for k, v in cols.items())
        pkey = ", ".join(_quote(k) for k in primary)
        self.conn.execute(f"CREATE TABLE IF NOT EXISTS {_quote(table)} ({defs}, PRIMARY KEY ({pkey}))")
        marks = ", ".join("?" for _ in cols)
        names = ", ".join(_quote(k) for k in cols)
        self.conn.execute(f"INSERT OR IGNORE INTO {_quote(table)} ({names}) VALUES ({marks})",
                          tuple(cols.values()))

    def get_config(self, name, keys):
        key_dict = self.get_key_dict(keys)
        with self.lock:
            row = self._select(self.table_name(name, key_dict), key_dict)
        if row is None:
            return None
        values = {k: v for k, v in row.items() if k not in key_dict}
        kwargs = {k: v for k, v in values.items() if k not in self.signature.parameters}
        options = {k: v for k, v in values.items() if k in self.signature.parameters}
        return triton.Config(kwargs, **options)

    def put_config(self, name, keys, config):
        if isinstance(config, triton.Config):
            config = self.get_config_dict(config)
        key_dict = self.get_key_dict(keys)
        with self.lock:
            self._insert(self.table_name(name, key_dict), key_dict, config)

    def get_benchmark(self, name, keys, config):
        where = {**self.get_key_dict(keys), **self.get_config_dict(config)}
        with self.lock:
            row = self._select(self.table_name(name, where), where)
        if row is None:
            return None
        return (row["p50"], row["p20"], row["p80"])

    def put_benchmark(self, name, keys, config, benchmark):
        if isinstance(config, triton.Config):
            config = self.get_config_dict(config)
        primary = {**self.get_key_dict(keys), **config}
        p50, p20, p80 = benchmark
        with self.lock:
            self._insert(self.table_name(name, primary), primary,
                         {"p50": float(p50), "p20": float(p20), "p80": float(p80)})
