"""Tests of client.py against a running `promptkit serve`.

The Go test of the CLI (cmd/promptkit, TestServeBinary) starts the server
on a set made for these tests and runs them with PROMPTKIT_URL set:

    PROMPTKIT_URL=http://127.0.0.1:8080 python3 -m unittest examples/python/test_client.py

The set: "greet" (Hello {{ name }}!), "echo" ({{ variables }}/{{ self }}),
and "chat" (a system and a user message of {{ q }}).
"""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from client import PromptError, PromptKit  # noqa: E402


class ClientTest(unittest.TestCase):
    def setUp(self):
        url = os.environ.get("PROMPTKIT_URL")
        if not url:
            self.skipTest("PROMPTKIT_URL is not set: no server to test against")
        self.pk = PromptKit(url)

    def test_variables_as_a_dict(self):
        self.assertEqual(self.pk.render("greet", {"name": "Ada"}).text, "Hello Ada!")

    def test_a_variable_called_name(self):
        # The template's name is positional-only, so "name" is a variable.
        self.assertEqual(self.pk.render("greet", name="Ada").text, "Hello Ada!")

    def test_variables_called_variables_and_self(self):
        self.assertEqual(self.pk.render("echo", {"variables": "v", "self": "s"}).text, "v/s")
        self.assertEqual(self.pk.render("echo", variables="v", self="s").text, "v/s")
        self.assertEqual(self.pk.render("echo", {"variables": "v"}, self="s").text, "v/s")

    def test_a_variable_given_twice(self):
        with self.assertRaises(TypeError) as cm:
            self.pk.render("greet", {"name": "Ada"}, name="Bob")
        self.assertIn("variables given twice: name", str(cm.exception))
        with self.assertRaises(TypeError):
            self.pk.render("greet", ["name"])

    def test_messages(self):
        p = self.pk.messages("chat", {"q": "hi"})
        self.assertEqual(p.messages, [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"}])
        self.assertEqual(self.pk.messages("chat", q="hi").messages, p.messages)
        self.assertTrue(p.digest.startswith("sha256:"))

    def test_a_missing_variable(self):
        with self.assertRaises(PromptError) as cm:
            self.pk.render("greet", {})
        e = cm.exception
        self.assertEqual((e.status, e.kind, e.variables), (422, "missing_variables", ["name"]))

    def test_an_extra_variable(self):
        with self.assertRaises(PromptError) as cm:
            self.pk.render("greet", {"name": "Ada", "nmae": "x"})
        self.assertEqual(cm.exception.kind, "extra_variables")


if __name__ == "__main__":
    unittest.main()
