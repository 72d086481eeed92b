/** The CRD the e2e CRD tests apply: widgets.e2e.example.com, v1 (storage) and v1beta1 (deprecated). */
export const WIDGET_CRD_YAML = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.e2e.example.com
spec:
  group: e2e.example.com
  scope: Namespaced
  names:
    plural: widgets
    singular: widget
    kind: Widget
    shortNames: [wdg]
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        description: A widget of the e2e suite.
        properties:
          spec:
            type: object
            description: The desired widget.
            properties:
              color:
                type: string
                description: The color of the widget.
                default: blue
              size:
                type: integer
                description: How big the widget is.
              replicas:
                type: integer
          status:
            type: object
            properties:
              replicas:
                type: integer
    subresources:
      status: {}
      scale:
        specReplicasPath: .spec.replicas
        statusReplicasPath: .status.replicas
    additionalPrinterColumns:
    - name: Color
      type: string
      jsonPath: .spec.color
    - name: Size
      type: integer
      jsonPath: .spec.size
    - name: Age
      type: date
      jsonPath: .metadata.creationTimestamp
  - name: v1beta1
    served: true
    storage: false
    deprecated: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              color:
                type: string
                default: blue
              size:
                type: integer
`;

export function widgetYaml(name: string, version: string, color: string, size: number): string {
  return `apiVersion: e2e.example.com/${version}
kind: Widget
metadata:
  name: ${name}
  namespace: default
spec:
  color: ${color}
  size: ${size}
`;
}
