BEGIN TRANSACTION;
CREATE TABLE blocks (
    dataset TEXT NOT NULL, block INTEGER NOT NULL, fingerprint TEXT NOT NULL, seed INTEGER,
    first_split INTEGER NOT NULL, n_splits INTEGER NOT NULL, PRIMARY KEY (dataset, block));
INSERT INTO "blocks" VALUES('data',0,'c8a58a8cb6035d5cbd5b67046ff353a103bb7920a8f459a5dbe7495777115dc3',0,0,3);
CREATE TABLE designs (
    dataset TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, data_hash TEXT NOT NULL,
    n_samples INTEGER NOT NULL, n_splits INTEGER NOT NULL, metric TEXT NOT NULL,
    scoring TEXT NOT NULL, cv TEXT NOT NULL, seed INTEGER, created_at TEXT NOT NULL);
INSERT INTO "designs" VALUES('data','c8a58a8cb6035d5cbd5b67046ff353a103bb7920a8f459a5dbe7495777115dc3','6f4c0462c3a40695eb196820079687b3',150,3,'accuracy','["accuracy"]','RepeatedStratifiedKFold(n_repeats=1, n_splits=3, random_state=0)',0,'2026-11-23T17:20:56Z');
CREATE TABLE fits (
    fit_id INTEGER PRIMARY KEY AUTOINCREMENT, run_id INTEGER, dataset TEXT NOT NULL,
    model TEXT NOT NULL, split INTEGER NOT NULL, seed INTEGER, fit_time REAL, score_time REAL,
    error TEXT, params_hash TEXT NOT NULL, params TEXT NOT NULL, best_params TEXT,
    versions TEXT NOT NULL, host TEXT, pid INTEGER, finished_at TEXT NOT NULL,
    UNIQUE (dataset, model, split));
INSERT INTO "fits" VALUES(1,1,'data','nb',0,0,3.49832249999053601641e-02,2.10796600003959611058e-03,NULL,'e6b8f5458cd0d0525b678cbe25e41a82a380019a2711cbcbb3d34e452b516466','{"__class__": "sklearn.naive_bayes.GaussianNB", "priors": "None", "var_smoothing": "1e-09"}',NULL,'{"bayescomp": "0.1.0", "joblib": "1.6.0", "numpy": "2.4.6", "pandas": "3.1.1", "python": "3.11.7", "scipy": "1.17.1", "sklearn": "1.9.1"}','example-host',24743,'2026-11-23T17:20:56Z');
INSERT INTO "fits" VALUES(2,1,'data','nb',1,0,1.86330299993642256595e-03,3.02013030000125581864e-02,NULL,'e6b8f5458cd0d0525b678cbe25e41a82a380019a2711cbcbb3d34e452b516466','{"__class__": "sklearn.naive_bayes.GaussianNB", "priors": "None", "var_smoothing": "1e-09"}',NULL,'{"bayescomp": "0.1.0", "joblib": "1.6.0", "numpy": "2.4.6", "pandas": "3.1.1", "python": "3.11.7", "scipy": "1.17.1", "sklearn": "1.9.1"}','example-host',24743,'2026-11-23T17:20:57Z');
INSERT INTO "fits" VALUES(3,1,'data','nb',2,0,1.88731899993399565573e-03,3.04721039999549248022e-02,NULL,'e6b8f5458cd0d0525b678cbe25e41a82a380019a2711cbcbb3d34e452b516466','{"__class__": "sklearn.naive_bayes.GaussianNB", "priors": "None", "var_smoothing": "1e-09"}',NULL,'{"bayescomp": "0.1.0", "joblib": "1.6.0", "numpy": "2.4.6", "pandas": "3.1.1", "python": "3.11.7", "scipy": "1.17.1", "sklearn": "1.9.1"}','example-host',24743,'2026-11-23T17:20:57Z');
INSERT INTO "fits" VALUES(4,1,'data','lda',0,0,0.0467937119999533,1.99098300004152406472e-03,NULL,'7f7c6c4ddc1fff44c76f374e952c5b3d4e5ea9de8a99597c4254ae9114e31c37','{"__class__": "sklearn.discriminant_analysis.LinearDiscriminantAnalysis", "covariance_estimator": "None", "n_components": "None", "priors": "None", "shrinkage": "None", "solver": "''svd''", "store_covariance": "False", "tol": "0.0001"}',NULL,'{"bayescomp": "0.1.0", "joblib": "1.6.0", "numpy": "2.4.6", "pandas": "3.1.1", "python": "3.11.7", "scipy": "1.17.1", "sklearn": "1.9.1"}','example-host',24743,'2026-11-23T17:20:57Z');
INSERT INTO "fits" VALUES(5,1,'data','lda',1,0,2.14789599999676283914e-03,2.6285846000064339023e-02,NULL,'7f7c6c4ddc1fff44c76f374e952c5b3d4e5ea9de8a99597c4254ae9114e31c37','{"__class__": "sklearn.discriminant_analysis.LinearDiscriminantAnalysis", "covariance_estimator": "None", "n_components": "None", "priors": "None", "shrinkage": "None", "solver": "''svd''", "store_covariance": "False", "tol": "0.0001"}',NULL,'{"bayescomp": "0.1.0", "joblib": "1.6.0", "numpy": "2.4.6", "pandas": "3.1.1", "python": "3.11.7", "scipy": "1.17.1", "sklearn": "1.9.1"}','example-host',24743,'2026-11-23T17:20:57Z');
INSERT INTO "fits" VALUES(6,1,'data','lda',2,0,3.67871509999986301409e-02,3.06484460002138803247e-02,NULL,'7f7c6c4ddc1fff44c76f374e952c5b3d4e5ea9de8a99597c4254ae9114e31c37','{"__class__": "sklearn.discriminant_analysis.LinearDiscriminantAnalysis", "covariance_estimator": "None", "n_components": "None", "priors": "None", "shrinkage": "None", "solver": "''svd''", "store_covariance": "False", "tol": "0.0001"}',NULL,'{"bayescomp": "0.1.0", "joblib": "1.6.0", "numpy": "2.4.6", "pandas": "3.1.1", "python": "3.11.7", "scipy": "1.17.1", "sklearn": "1.9.1"}','example-host',24743,'2026-11-23T17:20:57Z');
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO "meta" VALUES('schema_version','1');
INSERT INTO "meta" VALUES('created_at','2026-11-23T17:20:56Z');
CREATE TABLE models (
    model TEXT PRIMARY KEY, params_hash TEXT NOT NULL, params TEXT NOT NULL,
    description TEXT, path TEXT, nested INTEGER NOT NULL DEFAULT 0);
INSERT INTO "models" VALUES('nb','e6b8f5458cd0d0525b678cbe25e41a82a380019a2711cbcbb3d34e452b516466','{"__class__": "sklearn.naive_bayes.GaussianNB", "priors": "None", "var_smoothing": "1e-09"}','GaussianNB',NULL,0);
INSERT INTO "models" VALUES('lda','7f7c6c4ddc1fff44c76f374e952c5b3d4e5ea9de8a99597c4254ae9114e31c37','{"__class__": "sklearn.discriminant_analysis.LinearDiscriminantAnalysis", "covariance_estimator": "None", "n_components": "None", "priors": "None", "shrinkage": "None", "solver": "''svd''", "store_covariance": "False", "tol": "0.0001"}','LinearDiscriminantAnalysis',NULL,0);
CREATE TABLE runs (
    run_id INTEGER PRIMARY KEY AUTOINCREMENT, started_at TEXT NOT NULL, finished_at TEXT,
    config TEXT NOT NULL, champion TEXT, status TEXT NOT NULL);
INSERT INTO "runs" VALUES(1,'2026-11-23T17:20:56Z','2026-11-23T17:20:58Z','{"baseline": "nb", "cv": {"data": "RepeatedStratifiedKFold(n_repeats=1, n_splits=3, random_state=0)"}, "data_hash": {"data": "6f4c0462c3a40695eb196820079687b3"}, "design_fingerprint": {"data": "c8a58a8cb6035d5cbd5b67046ff353a103bb7920a8f459a5dbe7495777115dc3"}, "gamma": 0.95, "max_repeats": 0, "method": "auto", "metric": "accuracy", "models": ["nb", "lda"], "order": "given", "random_state": 0, "rope": 0.01, "scoring": ["accuracy"]}','nb','finished');
CREATE TABLE scores (
    fit_id INTEGER NOT NULL REFERENCES fits(fit_id) ON DELETE CASCADE,
    dataset TEXT NOT NULL, model TEXT NOT NULL, split INTEGER NOT NULL,
    metric TEXT NOT NULL, value REAL, PRIMARY KEY (dataset, model, split, metric));
INSERT INTO "scores" VALUES(1,'data','nb',0,'accuracy',0.96);
INSERT INTO "scores" VALUES(2,'data','nb',1,'accuracy',0.94);
INSERT INTO "scores" VALUES(3,'data','nb',2,'accuracy',0.98);
INSERT INTO "scores" VALUES(4,'data','lda',0,'accuracy',1.0);
INSERT INTO "scores" VALUES(5,'data','lda',1,'accuracy',0.96);
INSERT INTO "scores" VALUES(6,'data','lda',2,'accuracy',0.98);
CREATE TABLE splits (
    dataset TEXT NOT NULL, split INTEGER NOT NULL, block INTEGER NOT NULL,
    repeat INTEGER NOT NULL, fold INTEGER NOT NULL, n_train INTEGER NOT NULL,
    n_test INTEGER NOT NULL, train_idx TEXT NOT NULL, test_idx TEXT NOT NULL,
    PRIMARY KEY (dataset, split));
INSERT INTO "splits" VALUES('data',0,0,0,0,100,50,'[0, 3, 5, 6, 7, 8, 10, 11, 12, 13, 14, 17, 18, 19, 21, 22, 24, 25, 26, 29, 31, 32, 33, 36, 37, 39, 40, 41, 42, 44, 45, 48, 49, 51, 52, 55, 57, 58, 59, 60, 62, 63, 64, 65, 67, 68, 69, 70, 71, 72, 74, 75, 76, 78, 80, 83, 84, 85, 87, 88, 90, 93, 94, 95, 97, 98, 101, 102, 103, 106, 107, 108, 109, 110, 111, 112, 115, 116, 117, 118, 121, 124, 125, 126, 127, 128, 129, 131, 132, 133, 134, 136, 138, 140, 141, 143, 144, 146, 147, 148]','[1, 2, 4, 9, 15, 16, 20, 23, 27, 28, 30, 34, 35, 38, 43, 46, 47, 50, 53, 54, 56, 61, 66, 73, 77, 79, 81, 82, 86, 89, 91, 92, 96, 99, 100, 104, 105, 113, 114, 119, 120, 122, 123, 130, 135, 137, 139, 142, 145, 149]');
INSERT INTO "splits" VALUES('data',1,0,0,1,100,50,'[1, 2, 3, 4, 6, 9, 11, 13, 15, 16, 17, 18, 20, 23, 24, 26, 27, 28, 30, 32, 33, 34, 35, 36, 38, 40, 43, 44, 45, 46, 47, 48, 49, 50, 53, 54, 56, 57, 58, 59, 60, 61, 62, 64, 66, 69, 71, 73, 74, 75, 77, 79, 81, 82, 83, 86, 87, 88, 89, 91, 92, 94, 95, 96, 97, 98, 99, 100, 103, 104, 105, 106, 110, 111, 113, 114, 115, 117, 119, 120, 121, 122, 123, 124, 125, 130, 132, 134, 135, 137, 138, 139, 141, 142, 143, 144, 145, 147, 148, 149]','[0, 5, 7, 8, 10, 12, 14, 19, 21, 22, 25, 29, 31, 37, 39, 41, 42, 51, 52, 55, 63, 65, 67, 68, 70, 72, 76, 78, 80, 84, 85, 90, 93, 101, 102, 107, 108, 109, 112, 116, 118, 126, 127, 128, 129, 131, 133, 136, 140, 146]');
INSERT INTO "splits" VALUES('data',2,0,0,2,100,50,'[0, 1, 2, 4, 5, 7, 8, 9, 10, 12, 14, 15, 16, 19, 20, 21, 22, 23, 25, 27, 28, 29, 30, 31, 34, 35, 37, 38, 39, 41, 42, 43, 46, 47, 50, 51, 52, 53, 54, 55, 56, 61, 63, 65, 66, 67, 68, 70, 72, 73, 76, 77, 78, 79, 80, 81, 82, 84, 85, 86, 89, 90, 91, 92, 93, 96, 99, 100, 101, 102, 104, 105, 107, 108, 109, 112, 113, 114, 116, 118, 119, 120, 122, 123, 126, 127, 128, 129, 130, 131, 133, 135, 136, 137, 139, 140, 142, 145, 146, 149]','[3, 6, 11, 13, 17, 18, 24, 26, 32, 33, 36, 40, 44, 45, 48, 49, 57, 58, 59, 60, 62, 64, 69, 71, 74, 75, 83, 87, 88, 94, 95, 97, 98, 103, 106, 110, 111, 115, 117, 121, 124, 125, 132, 134, 138, 141, 143, 144, 147, 148]');
CREATE TABLE steps (
    run_id INTEGER NOT NULL REFERENCES runs(run_id), step INTEGER NOT NULL,
    champion TEXT NOT NULL, challenger TEXT NOT NULL, p_better REAL, p_left REAL, p_rope REAL,
    p_right REAL, risk REAL, expected_gain REAL, decision TEXT NOT NULL, reason TEXT,
    fits INTEGER, n_splits INTEGER, extra_repeats INTEGER, PRIMARY KEY (run_id, step));
INSERT INTO "steps" VALUES(1,1,'nb','lda',8.06186217847897235166e-01,1.21031635520066488398e-01,1.98389584851279554555e-01,0.680578779628654,1.93813782152102737077e-01,2.00000000000000177635e-02,'inconclusive','no region reaches 0.95 (largest: P(better beyond the ROPE) = 0.681); expected gain +0.02 with risk P(worse) = 0.194 — collect more repetitions or accept the uncertainty',3,3,0);
DELETE FROM "sqlite_sequence";
INSERT INTO "sqlite_sequence" VALUES('runs',1);
INSERT INTO "sqlite_sequence" VALUES('fits',6);
COMMIT;
