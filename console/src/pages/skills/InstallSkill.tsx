/**
 * Install a skill: its manifest pasted as JSON (docs/api/completions.md, "Skills": name, version, description,
 * instructions, tools with a JSON Schema of parameters and the HTTP call). The text is checked as
 * a JSON object here; the API checks the manifest, and its refusal names the field, shown under
 * the text box with the message.
 */
import type { SkillManifest } from '@combo/client';
import { type FormEvent, useId, useState } from 'react';
import { useNavigate } from 'react-router';
import { errorDetails, fieldOf } from '../../api/errors';
import { useInstallSkill } from '../../api/skills';
import { ErrorBanner } from '../../components/ErrorBanner';
import { useToast } from '../../components/Toast';
import { parseJsonObject } from '../automations/fields';

/** A working manifest: Open-Meteo's forecast API needs no key. */
const EXAMPLE = {
  name: 'weather',
  version: '1.0.0',
  description: 'Current weather at a place, from Open-Meteo.',
  instructions:
    'When asked about the weather, call weather__forecast with the place\'s latitude and longitude and current set to "temperature_2m,wind_speed_10m", then answer in one sentence.',
  tools: [
    {
      name: 'forecast',
      description: 'The current temperature and wind at a latitude and longitude.',
      parameters: {
        type: 'object',
        properties: {
          latitude: { type: 'number', minimum: -90, maximum: 90 },
          longitude: { type: 'number', minimum: -180, maximum: 180 },
          current: { type: 'string', description: 'comma-separated variables, e.g. temperature_2m,wind_speed_10m' },
        },
        required: ['latitude', 'longitude', 'current'],
        additionalProperties: false,
      },
      http: { method: 'GET', url: 'https://api.open-meteo.com/v1/forecast', headers: { Accept: 'application/json' }, timeout_ms: 5000 },
    },
  ],
};

export function InstallSkillForm() {
  const install = useInstallSkill();
  const navigate = useNavigate();
  const notify = useToast();
  const [text, setText] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const ids = { manifest: useId(), help: useId(), error: useId() };
  // The API's field is `body.manifest…`: the text box holds the manifest.
  const apiField = fieldOf(install.error);
  const apiProblem = apiField?.startsWith('manifest') ? { path: apiField, message: errorDetails(install.error).message } : null;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const parsed = parseJsonObject(text);
    if ('problem' in parsed) {
      setProblem(parsed.problem);
      install.reset();
      return;
    }
    setProblem(null);
    install.mutate(
      // The API validates the manifest (and names what is wrong): sent as pasted.
      { manifest: parsed.value as unknown as SkillManifest },
      {
        onSuccess: (skill) => {
          notify(`Skill "${skill.name}" ${skill.version} installed`);
          void navigate(`/skills/${skill.skill_id}`);
        },
      },
    );
  };

  const invalid = problem !== null || apiProblem !== null;
  return (
    <form className="auto-form" onSubmit={submit} aria-label="Install a skill">
      <div className="field">
        <label htmlFor={ids.manifest}>Manifest (JSON)</label>
        <p id={ids.help} className="help">
          <code>name</code> (a slug), <code>version</code> (x.y.z), <code>description</code>, <code>instructions</code> (added to the system
          prompt while active) and up to 16 <code>tools</code>, each with a <code>parameters</code> JSON Schema object and the{' '}
          <code>http</code> call it makes (<code>method</code>, <code>url</code>, non-secret <code>headers</code>, <code>timeout_ms</code>).
        </p>
        <textarea
          id={ids.manifest}
          className="auto-code"
          value={text}
          onChange={(e) => setText(e.target.value)}
          rows={14}
          spellCheck={false}
          required
          placeholder='{ "name": "…", "version": "1.0.0", "tools": [] }'
          aria-invalid={invalid}
          aria-describedby={invalid ? `${ids.error} ${ids.help}` : ids.help}
        />
        {problem !== null && (
          <p id={ids.error} className="auto-field-error">
            {problem}
          </p>
        )}
        {apiProblem && (
          <p id={ids.error} className="auto-field-error" data-testid="manifest-field-error">
            <code>{apiProblem.path}</code>: {apiProblem.message}
          </p>
        )}
      </div>
      {install.error !== null && !apiProblem && <ErrorBanner error={install.error} title="Could not install the skill" />}
      {apiProblem && <ErrorBanner error={install.error} title="The manifest was refused" />}
      <div className="auto-form-actions">
        <button type="submit" className="button button-primary" disabled={install.isPending}>
          {install.isPending ? 'Installing…' : 'Install skill'}
        </button>
        <button
          type="button"
          className="button"
          onClick={() => {
            setText(JSON.stringify(EXAMPLE, null, 2));
            setProblem(null);
          }}
        >
          Insert an example
        </button>
      </div>
    </form>
  );
}
