# Reproduces stanfordnlp/dspy tests/teleprompt/test_gepa.py::test_track_stats_result_structure
# (commit 4ed377ee9110e912d4f5e1be43b317b87455053c, lines 588-654), with the recorded LM calls
# tests/teleprompt/gepa_dummy_lm.json, and writes detailed_results.to_dict() as JSON.
import json, sys
import dspy
from dspy import Example
from dspy.predict import Predict

class SimpleModule(dspy.Module):
    def __init__(self, signature):
        super().__init__()
        self.predictor = Predict(signature)
    def forward(self, **kwargs):
        return self.predictor(**kwargs)

class DictDummyLM(dspy.clients.lm.LM):
    def __init__(self, history):
        super().__init__("dummy", "chat", 0.0, 1000, True)
        self.history = {}
        for m in history:
            self.history[hash(repr(m["messages"]))] = m
    def __call__(self, prompt=None, messages=None, **kwargs):
        assert hash(repr(messages)) in self.history, f"Message {messages} not found in history"
        return self.history[hash(repr(messages))]["outputs"]

def simple_metric(example, prediction, trace=None, pred_name=None, pred_trace=None):
    return dspy.Prediction(score=example.output == prediction.output, feedback="Wrong answer.")

data = json.load(open(sys.argv[1]))
dspy.configure(lm=DictDummyLM(data["lm"]))
optimizer = dspy.GEPA(metric=simple_metric, reflection_lm=DictDummyLM(data["reflection_lm"]),
                      max_metric_calls=5, track_stats=True)
trainset = [
    Example(input="What is the color of the sky?", output="blue").with_inputs("input"),
    Example(input="What does the fox say?", output="Ring-ding-ding-ding-dingeringeding!").with_inputs("input"),
]
prog = optimizer.compile(SimpleModule("input -> output"), trainset=trainset, valset=trainset)
d = prog.detailed_results.to_dict()
print(repr(d["val_subscores"]), file=sys.stderr)
json.dump(d, open(sys.argv[2], "w"), indent=2)
